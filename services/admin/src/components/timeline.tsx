import type { Message, TimelineEntry } from '../api/types';
import { FEEDBACK_EVENTS, TERMINAL_STATUSES } from '../api/types';
import { MessageContentToggle } from './message-content';
import { MessageSource, sentAs } from './message-source';
import { Badge, Time, type BadgeTone } from './ui';

const TONES: Record<string, BadgeTone> = {
  scheduled: 'blue',
  queued: 'blue',
  sent: 'green',
  opened: 'green',
  clicked: 'green',
  deferred: 'amber',
  unsubscribed: 'amber',
  bounced: 'red',
  soft_bounced: 'amber',
  complained: 'red',
  failed: 'red',
  suppressed: 'gray',
  canceled: 'gray',
};

/** What an entry's reason is, by its event: the bounce report's status and diagnostic, the complaint's kind and sender, the suppression's reason. */
const REASON_LABELS: Record<string, string> = {
  bounced: 'Bounce',
  soft_bounced: 'Soft bounce',
  complained: 'Complaint',
  suppressed: 'Suppressed',
};

export const toneOf = (event: string): BadgeTone => TONES[event] ?? 'gray';

/** A message's status has settled when no further delivery step can come (engagement may still). */
export const isSettled = (message: Pick<Message, 'status'>): boolean => (TERMINAL_STATUSES as readonly string[]).includes(message.status);

function Details({ entry }: { entry: TimelineEntry }) {
  const parts: string[] = [];
  if (entry.attempt !== undefined) parts.push(`attempt ${entry.attempt}`);
  if (entry.count !== undefined && entry.count > 1) parts.push(`${entry.count} times`);
  return (
    <div className="min-w-0 text-sm">
      {parts.length > 0 && <span className="text-slate-500 dark:text-slate-400">{parts.join(' · ')}</span>}
      {entry.smtp && (
        <p className="font-mono text-xs break-words text-slate-700 dark:text-slate-300">
          SMTP {entry.smtp.response.startsWith(String(entry.smtp.code)) ? entry.smtp.response : `${entry.smtp.code} ${entry.smtp.response}`}
        </p>
      )}
      {entry.reason && (
        <p className="break-words text-slate-700 dark:text-slate-300">
          {REASON_LABELS[entry.event] ?? 'Reason'}: {entry.reason}
        </p>
      )}
      {entry.url && <p className="truncate text-slate-700 dark:text-slate-300">Link: {entry.url}</p>}
    </div>
  );
}

/** Everything that happened to one message, in order: queued → sent → opened → clicked, with SMTP answers. */
export function Timeline({ entries }: { entries: TimelineEntry[] }) {
  const ordered = [...entries].sort((a, b) => a.sequence - b.sequence);
  return (
    <ol aria-label="Timeline" className="relative space-y-3 border-l border-slate-200 pl-4 dark:border-slate-700">
      {ordered.map((entry) => (
        <li key={entry.sequence} className="relative">
          <span
            aria-hidden="true"
            className="absolute top-1.5 -left-[21px] h-2.5 w-2.5 rounded-full bg-slate-300 ring-2 ring-white dark:bg-slate-600 dark:ring-slate-900"
          />
          <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
            <Badge tone={toneOf(entry.event)}>{entry.event}</Badge>
            <span className="text-xs text-slate-500 dark:text-slate-400">
              <Time at={entry.at} />
            </span>
            <Details entry={entry} />
          </div>
        </li>
      ))}
    </ol>
  );
}

/** The feedback events (soft bounce, complaint) a message's timeline holds, once each. */
const feedbackOf = (message: Message): string[] =>
  FEEDBACK_EVENTS.filter((event) => message.timeline.some((entry) => entry.event === event));

/** A size in bytes as people read it. */
const sizeOf = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Where one of a message's attachments downloads: the API's route, a link on the panel's own
 * origin, so the browser sends the session cookie with it. The gateway answers with
 * `Content-Disposition: attachment` and a type no browser renders, so the file is saved, never shown here.
 */
export const attachmentHref = (message: Pick<Message, 'project_id' | 'id'>, index: number): string =>
  `/v1/projects/${encodeURIComponent(message.project_id)}/messages/${encodeURIComponent(message.id)}/attachments/${index}`;

/** The tags, metadata and attachments the send gave, when it gave any; each attachment a download link. */
function SendOptions({ message }: { message: Message }) {
  const metadata = Object.entries(message.metadata ?? {});
  const tags = message.tags ?? [];
  const attachments = message.attachments ?? [];
  if (tags.length === 0 && metadata.length === 0 && attachments.length === 0) return null;
  return (
    <div className="mb-3 space-y-2 text-xs">
      {tags.length > 0 && (
        <ul aria-label="Tags" className="flex flex-wrap gap-1">
          {tags.map((tag) => (
            <li key={tag}>
              <Badge tone="gray">{tag}</Badge>
            </li>
          ))}
        </ul>
      )}
      {metadata.length > 0 && (
        <dl aria-label="Metadata" className="grid grid-cols-[minmax(0,max-content)_1fr] gap-x-3 gap-y-1">
          {metadata.map(([key, value]) => (
            <div key={key} className="contents">
              <dt className="truncate font-mono text-slate-500 dark:text-slate-400">{key}</dt>
              <dd className="break-all font-mono">{value}</dd>
            </div>
          ))}
        </dl>
      )}
      {attachments.length > 0 && (
        <ul aria-label="Attachments" className="space-y-0.5">
          {attachments.map((a, i) => (
            <li key={i} className="flex flex-wrap gap-x-2">
              <a
                href={attachmentHref(message, i)}
                download={a.filename}
                title={`Download ${a.filename}`}
                className="break-all font-mono text-indigo-600 hover:underline dark:text-indigo-400"
              >
                {a.filename}
              </a>
              <span className="text-slate-500 dark:text-slate-400">
                {a.content_type} · {sizeOf(a.size)}
                {a.content_id !== undefined && ' · inline'}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The cc and bcc addresses the send gave, each dropped one with why and what came back about each, when it gave any. */
function Copies({ message }: { message: Message }) {
  const dropped = new Map((message.dropped_copies ?? []).map((d) => [`${d.kind}:${d.email}`, d.reason]));
  const reports = new Map<string, string[]>();
  for (const r of message.copy_reports ?? [])
    reports.set(`${r.kind}:${r.email}`, [...(reports.get(`${r.kind}:${r.email}`) ?? []), r.event.replace('_', ' ')]);
  const rows = (['cc', 'bcc'] as const).flatMap((kind) => {
    const addresses = message[kind] ?? [];
    return addresses.length > 0 ? [{ kind, addresses }] : [];
  });
  if (rows.length === 0) return null;
  return (
    <dl aria-label="Copies" className="mb-3 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-xs">
      {rows.map(({ kind, addresses }) => (
        <div key={kind} className="contents">
          <dt className="text-slate-500 dark:text-slate-400">{kind === 'cc' ? 'Cc' : 'Bcc'}</dt>
          <dd className="break-all font-mono">
            {addresses.map((address, i) => {
              const reason = dropped.get(`${kind}:${address}`);
              return (
                // By position: an erased person's addresses all read the same.
                <span key={i}>
                  {i > 0 && ', '}
                  {reason ? (
                    <span title={`not sent: ${reason}`}>
                      <s>{address}</s> <Badge tone="gray">{`dropped: ${reason}`}</Badge>
                    </span>
                  ) : (
                    address
                  )}
                  {(reports.get(`${kind}:${address}`) ?? []).map((event) => (
                    <span key={event}>
                      {' '}
                      <Badge tone="red">{event}</Badge>
                    </span>
                  ))}
                </span>
              );
            })}
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function MessageItem({ message }: { message: Message }) {
  return (
    <article
      aria-label={`Message ${message.subject ?? sentAs(message)}`}
      className="rounded-md border border-slate-200 p-3 dark:border-slate-700"
    >
      <header className="mb-3 flex flex-wrap items-center gap-2">
        <Badge tone={toneOf(message.status)}>{message.status}</Badge>
        {/* Sent with a test key: its outcome was simulated, nothing was delivered. */}
        {message.test && (
          <span title="Sent with a test key: simulated, never delivered">
            <Badge tone="amber">test</Badge>
          </span>
        )}
        {/* A complaint or a soft bounce is no status of its own: it shows beside the status, its details on the timeline. */}
        {feedbackOf(message).map((event) => (
          <Badge key={event} tone={toneOf(event)}>
            {event}
          </Badge>
        ))}
        <h3 className="min-w-0 flex-1 truncate font-medium" title={message.subject ?? undefined}>
          {message.subject ?? <em className="text-slate-500">(no subject yet)</em>}
        </h3>
        <span className="w-full text-xs text-slate-500 sm:w-auto dark:text-slate-400">
          <MessageSource message={message} /> · <Time at={message.created_at} />
          {message.send_at && (
            <>
              {' '}
              · {message.status === 'scheduled' ? 'goes at' : 'scheduled for'} <Time at={message.send_at} />
            </>
          )}
        </span>
      </header>
      <Copies message={message} />
      <SendOptions message={message} />
      <Timeline entries={message.timeline} />
      {/* A message has a subject once an attempt rendered it: before that there is nothing to show. */}
      {message.subject !== null && <MessageContentToggle projectId={message.project_id} messageId={message.id} />}
      <p className="mt-2 font-mono text-xs text-slate-400">{message.id}</p>
    </article>
  );
}
