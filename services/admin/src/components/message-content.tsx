import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import type { MessageContent } from '../api/types';
import { Button, Empty, ErrorState, Loading } from './ui';

/**
 * A message's email as rendered (before tracking: viewing it counts no open), loaded when shown.
 * The HTML is framed from the gateway's page of it (`/admin/frames/email/…`) in a `sandbox=""`
 * iframe: no scripts, no same origin, no forms, no navigation of the panel. That page has a policy
 * of its own that lets the email's inline styles apply and loads nothing from elsewhere; inline
 * (srcdoc), the HTML took the panel's policy, which refuses inline styles, and showed unstyled.
 */
export function MessageContentView({ projectId, messageId }: { projectId: string; messageId: string }) {
  const [showText, setShowText] = useState(false);
  const content = useQuery({
    queryKey: queryKeys.messageContent(projectId, messageId),
    queryFn: () => api<MessageContent>(`/projects/${projectId}/messages/${messageId}/content`),
    // What was sent never changes.
    staleTime: Infinity,
  });
  if (content.isPending) return <Loading what="the email" />;
  if (content.isError) {
    if (content.error instanceof ApiError && content.error.status === 404)
      return <Empty>{content.error.problem.detail ?? 'This message has no rendered email.'}</Empty>;
    return <ErrorState error={content.error} retry={() => void content.refetch()} />;
  }
  const { subject, text, truncated } = content.data;
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={() => setShowText((s) => !s)} aria-pressed={showText}>
          {showText ? 'Show HTML' : 'Show text part'}
        </Button>
        {truncated && <span className="text-xs text-amber-700 dark:text-amber-400">Cut at 256 KB: the email sent was longer.</span>}
      </div>
      {showText ? (
        <pre
          aria-label={`Text of the email ${subject}`}
          className="max-h-[28rem] overflow-auto rounded bg-slate-100 p-3 text-xs whitespace-pre-wrap dark:bg-slate-800"
        >
          {text || '(no text part)'}
        </pre>
      ) : (
        <iframe
          title={`Email as sent: ${subject}`}
          sandbox=""
          referrerPolicy="no-referrer"
          src={`/admin/frames/email/${projectId}/${messageId}`}
          className="h-[28rem] w-full rounded border border-slate-200 bg-white dark:border-slate-700"
        />
      )}
    </div>
  );
}

/** A "Show email" disclosure: the content is fetched only once asked for, not for every message of a page. */
export function MessageContentToggle({ projectId, messageId }: { projectId: string; messageId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="mt-3">
      <Button onClick={() => setOpen((o) => !o)} aria-expanded={open}>
        {open ? 'Hide email' : 'Show email'}
      </Button>
      {open && (
        <div className="mt-2">
          <MessageContentView projectId={projectId} messageId={messageId} />
        </div>
      )}
    </div>
  );
}
