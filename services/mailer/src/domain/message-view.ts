import { attachmentInfoOf, type CopyReportEvent, type DeliveredCopy, type Message, type TimelineEventName } from '@postbus/contracts';
import { statusOf } from './message-status';
import { isCopyEntry, type EventDoc, type MessageDoc, type SummaryDoc } from './message-records';

/** The status a message starts in: `scheduled` for a send with a send_at, else `queued`. */
export const firstStatus = (message: MessageDoc): 'queued' | 'scheduled' => (message.sendAt ? 'scheduled' : 'queued');

/** `queued` (or `scheduled`) is the message itself: sequence 1, at acceptance. */
export const queuedEntry = (message: MessageDoc): EventDoc & { event: TimelineEventName } => ({
  _id: `${message._id}:1`,
  messageId: message._id,
  projectId: message.projectId,
  event: firstStatus(message),
  sequence: 1,
  at: message.createdAt,
});

const countOf = (events: EventDoc[], event: 'opened' | 'clicked'): number =>
  events.reduce((n, e) => (e.event === event ? n + (e.count ?? 1) : n), 0);

/** The copies the latest delivery attempt dropped, when it dropped any. */
const droppedCopiesOf = (events: EventDoc[]): Pick<Message, 'dropped_copies'> => {
  const dropped = [...events].reverse().find((e) => e.attempt !== undefined)?.droppedCopies;
  return dropped?.length ? { dropped_copies: dropped } : {};
};

/** The copies the relay took, over every attempt (an attempt after one that took some goes without them). */
const deliveredCopiesOf = (events: EventDoc[]): Pick<Message, 'delivered_copies'> => {
  const delivered = new Map<string, DeliveredCopy>();
  for (const e of events) for (const c of e.deliveredCopies ?? []) delivered.set(`${c.kind}:${c.email}`, c);
  return delivered.size > 0 ? { delivered_copies: [...delivered.values()] } : {};
};

/** What the copies' mail systems reported after sending, in the order the entries were made. */
const copyReportsOf = (entries: EventDoc[]): Pick<Message, 'copy_reports'> =>
  entries.length > 0
    ? {
        copy_reports: entries.flatMap((e) =>
          e.copy
            ? [
                {
                  email: e.copy.email,
                  kind: e.copy.kind,
                  event: e.event.slice('copy_'.length) as CopyReportEvent,
                  at: e.at.toISOString(),
                  ...(e.reason ? { reason: e.reason } : {}),
                  ...(e.count ? { count: e.count } : {}),
                },
              ]
            : [],
        ),
      }
    : {};

/**
 * A message as clients read it: the message as accepted, its timeline after `queued` (delivery
 * attempts and engagement, in sequence order) and what they add up to. Entries about its copies
 * are read apart (`copy_reports`): the status and the timeline are the recipient's.
 */
export function messageView(message: MessageDoc, entries: EventDoc[]): Message {
  const events = entries.filter((e): e is EventDoc & { event: TimelineEventName } => !isCopyEntry(e));
  const copyEntries = entries.filter(isCopyEntry);
  const timeline = [queuedEntry(message), ...events];
  const last = timeline[timeline.length - 1]!;
  const latestFirst = [...events].reverse();
  // The language variant and version of the latest attempt that rendered the template (its default
  // names no language; the version accepted is named by none).
  const rendered = latestFirst.find((e) => e.subject || e.language);
  return {
    id: message._id,
    project_id: message.projectId,
    email_key: message.emailKey ?? null,
    source: message.source ?? 'api',
    template:
      message.templateId !== undefined && message.templateVersion !== undefined
        ? { id: message.templateId, version: rendered?.templateVersion ?? message.templateVersion }
        : null,
    language: rendered?.language ?? null,
    email: message.email,
    user_id: message.userId,
    status: statusOf(events, firstStatus(message)),
    accepted_at: message.acceptedAt.toISOString(),
    subject: latestFirst.find((e) => e.subject)?.subject ?? null,
    opened: events.some((e) => e.event === 'opened'),
    clicked: events.some((e) => e.event === 'clicked'),
    opens: countOf(events, 'opened'),
    clicks: countOf(events, 'clicked'),
    tags: message.tags ?? [],
    metadata: message.metadata ?? {},
    attachments: (message.attachments ?? []).map(attachmentInfoOf),
    ...(message.sendAt ? { send_at: message.sendAt.toISOString() } : {}),
    test: message.test === true,
    ...(message.to ? { to: message.to } : {}),
    ...(message.cc ? { cc: message.cc } : {}),
    ...(message.bcc ? { bcc: message.bcc } : {}),
    ...droppedCopiesOf(events),
    ...deliveredCopiesOf(events),
    ...copyReportsOf(copyEntries),
    created_at: message.createdAt.toISOString(),
    updated_at: last.at.toISOString(),
    timeline: timeline.map((e) => ({
      sequence: e.sequence,
      event: e.event,
      at: e.at.toISOString(),
      ...(e.smtp ? { smtp: e.smtp } : {}),
      ...(e.reason ? { reason: e.reason } : {}),
      ...(e.url ? { url: e.url } : {}),
      ...(e.attempt ? { attempt: e.attempt } : {}),
      ...(e.count ? { count: e.count } : {}),
    })),
  };
}

/** A summary's view as clients read it now: one kept before sends had tags, metadata, test mode, accepted_at and language has none. */
export const currentView = (view: Message): Message => ({
  ...view,
  tags: view.tags ?? [],
  metadata: view.metadata ?? {},
  attachments: view.attachments ?? [],
  test: view.test ?? false,
  language: view.language ?? null,
  // The summary's own accepted_at, else when its queued entry says the mailer recorded it: a moment later.
  accepted_at: view.accepted_at ?? view.timeline[0]?.at ?? view.created_at,
});

/** A message's summary (see SummaryDoc) from its timeline after `queued`; an entry given twice (read back, and in hand) counts once. */
export const summaryOf = (message: MessageDoc, events: EventDoc[]): SummaryDoc => ({
  _id: message._id,
  projectId: message.projectId,
  view: messageView(
    message,
    [...new Map(events.map((e) => [e._id, e])).values()].sort((a, b) => a.sequence - b.sequence),
  ),
});
