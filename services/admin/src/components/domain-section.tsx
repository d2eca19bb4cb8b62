import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useSenderDomains, useTrackingDomains } from '../api/catalog';
import { queryKeys } from '../api/query-keys';
import type { ListOf, SenderDomain, TrackingDomain } from '../api/types';
import { ConfirmDialog } from './confirm-dialog';
import { CopyButton } from './copy-button';
import { Badge, Button, Card, Empty, ErrorState, Loading, SubmitButton, TextField, Time } from './ui';

type Domain = SenderDomain | TrackingDomain;
type DomainKind = 'sender' | 'tracking';

const KINDS = {
  sender: {
    path: '/sender-domains',
    key: queryKeys.senderDomains,
    noun: 'sender domain',
    title: '1. Sender domains',
    intro:
      'The domain your mail comes from. Publish its SPF, DKIM and DMARC records at your DNS provider, then verify: mail is sent only from a verified domain, DKIM-signed with its key.',
    placeholder: 'mail.example.com',
  },
  tracking: {
    path: '/tracking-domains',
    key: queryKeys.trackingDomains,
    noun: 'tracking domain',
    title: '2. Tracking domains (optional)',
    intro:
      'Open pixels and tracked links on a domain of yours (a CNAME to Postbus) rather than the Postbus host. A project uses it once it is verified.',
    placeholder: 'links.example.com',
  },
} as const;

const STATUS_TONES = { verified: 'green', pending: 'amber', failed: 'red' } as const;

const PURPOSE_LABELS: Record<string, string> = {
  spf: 'SPF',
  dkim: 'DKIM',
  dmarc: 'DMARC',
  tracking: 'CNAME',
  ownership: 'Ownership',
  return_path_mx: 'Bounces (MX)',
  return_path_spf: 'Bounces (SPF)',
};

function DomainRecords({ domain, kind }: { domain: Domain; kind: DomainKind }) {
  const queryClient = useQueryClient();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const { path, key, noun } = KINDS[kind];
  const verify = useMutation({
    mutationFn: () => api<Domain>(`${path}/${domain.id}/verify`, { method: 'POST' }),
    onSuccess: (checked) => {
      queryClient.setQueryData<ListOf<Domain>>(key, (list) => list && { data: list.data.map((d) => (d.id === checked.id ? checked : d)) });
      // The project step of the checklist depends on the domain's status.
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const remove = useMutation({
    mutationFn: () => api(`${path}/${domain.id}`, { method: 'DELETE' }),
    onSuccess: () => {
      setConfirmDelete(false);
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const checks = domain.verification?.records ?? [];
  // The ownership record is asked for only when another client added the same domain first.
  const records = domain.records.filter((r) => r.required || r.purpose !== 'ownership');
  return (
    <article aria-label={`${noun} ${domain.domain}`} className="rounded-md border border-slate-200 p-3 dark:border-slate-800">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="font-mono text-sm font-semibold break-all">{domain.domain}</h3>
        <Badge tone={STATUS_TONES[domain.status]}>{domain.status}</Badge>
        {domain.verified_at && (
          <span className="text-xs text-slate-500 dark:text-slate-400">
            verified <Time at={domain.verified_at} />
          </span>
        )}
        <div className="ml-auto flex gap-2">
          <Button tone="primary" onClick={() => verify.mutate()} disabled={verify.isPending}>
            {verify.isPending ? 'Checking DNS…' : 'Verify'}
          </Button>
          <Button onClick={() => setConfirmDelete(true)}>Delete</Button>
        </div>
      </div>
      <ul aria-label={`DNS records to publish for ${domain.domain}`} className="mt-3 divide-y divide-slate-100 dark:divide-slate-800">
        {records.map((record) => {
          const check = checks.find((c) => c.purpose === record.purpose && c.name === record.name);
          const label = `${PURPOSE_LABELS[record.purpose] ?? record.purpose} ${record.type}`;
          return (
            <li
              key={`${record.purpose}-${record.name}`}
              aria-label={`${PURPOSE_LABELS[record.purpose] ?? record.purpose} record`}
              className="grid gap-2 py-2 text-sm md:grid-cols-[7rem_minmax(0,1fr)_10rem]"
            >
              <span className="font-medium">{label}</span>
              <dl className="grid min-w-0 grid-cols-[3rem_minmax(0,1fr)_max-content] items-start gap-x-2 gap-y-1">
                <dt className="text-xs text-slate-500 dark:text-slate-400">Name</dt>
                <dd>
                  <code className="font-mono text-xs break-all">{record.name}</code>
                </dd>
                <dd>
                  <CopyButton value={record.name} label={`Copy ${label} name`} />
                </dd>
                <dt className="text-xs text-slate-500 dark:text-slate-400">Value</dt>
                <dd>
                  <code className="line-clamp-3 font-mono text-xs break-all" title={record.value}>
                    {record.value}
                  </code>
                </dd>
                <dd>
                  <CopyButton value={record.value} label={`Copy ${label} value`} />
                </dd>
              </dl>
              <div className="flex flex-col items-start gap-1 text-xs">
                {!check ? (
                  <span className="text-slate-500 dark:text-slate-400">not checked yet</span>
                ) : (
                  <>
                    <Badge tone={check.ok ? 'green' : check.required ? 'red' : 'amber'}>{check.ok ? 'found' : 'not found'}</Badge>
                    {!check.ok && <span>{check.detail}</span>}
                  </>
                )}
              </div>
            </li>
          );
        })}
      </ul>
      {domain.verification && (
        <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
          Last checked <Time at={domain.verification.checked_at} />. DNS changes can take a while to be seen: verify again later if a record
          is not found yet.
        </p>
      )}
      {verify.isError && (
        <div className="mt-2">
          <ErrorState error={verify.error} />
        </div>
      )}
      <ConfirmDialog
        open={confirmDelete}
        onOpenChange={setConfirmDelete}
        title={`Delete ${domain.domain}?`}
        confirmLabel="Delete domain"
        onConfirm={() => remove.mutate()}
        pending={remove.isPending}
        error={remove.error}
      >
        <p>Projects that send from it can no longer send until they have another verified {noun}.</p>
      </ConfirmDialog>
    </article>
  );
}

/** A sender or tracking domain section of the setup screen: the domains with their records, and adding one. */
export function DomainSection({ kind, id }: { kind: DomainKind; id: string }) {
  const queryClient = useQueryClient();
  const sender = useSenderDomains();
  const tracking = useTrackingDomains();
  const domains = kind === 'sender' ? sender : tracking;
  const { path, key, noun, title, intro, placeholder } = KINDS[kind];
  const [name, setName] = useState('');
  const add = useMutation({
    mutationFn: (domain: string) => api<Domain>(path, { method: 'POST', body: { domain } }),
    onSuccess: (created) => {
      setName('');
      queryClient.setQueryData<ListOf<Domain>>(key, (list) => list && { data: [...list.data, created] });
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) add.mutate(name.trim());
  };
  return (
    <Card title={<span id={id}>{title}</span>} className="scroll-mt-4">
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-300">{intro}</p>
      {domains.isPending ? (
        <Loading what={`${noun}s`} />
      ) : domains.isError ? (
        <ErrorState error={domains.error} retry={() => void domains.refetch()} />
      ) : domains.data.data.length === 0 ? (
        <Empty>No {noun} yet.</Empty>
      ) : (
        <div className="space-y-3">
          {domains.data.data.map((domain) => (
            <DomainRecords key={domain.id} domain={domain} kind={kind} />
          ))}
        </div>
      )}
      <form onSubmit={submit} className="mt-4 flex flex-wrap items-end gap-2">
        <div className="min-w-[14rem] flex-1">
          <TextField
            label={kind === 'sender' ? 'New sender domain' : 'New tracking domain'}
            value={name}
            onValue={setName}
            placeholder={placeholder}
            required
          />
        </div>
        <SubmitButton pending={add.isPending} pendingLabel="Adding…">{`Add ${noun}`}</SubmitButton>
      </form>
      {add.isError && (
        <div className="mt-2">
          <ErrorState error={add.error} />
        </div>
      )}
    </Card>
  );
}
