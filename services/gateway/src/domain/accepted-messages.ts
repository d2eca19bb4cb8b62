import type { FoundRecord, RecordLookup } from '@postbus/bus';
import { attachmentInfoOf, Topics, type EmailTriggerCommand, type Message } from '@postbus/contracts';
import { acceptedTimeOf } from './batch-send';

/** The lanes a send's trigger travels on: a single send's, and a batch's. */
const LANES = [Topics.EmailCommands, Topics.EmailBulk] as const;
export type TriggerLane = (typeof LANES)[number];

export interface AcceptedMessagesDeps {
  /** Finds a record on a lane by when it was written (see TopicReader). */
  find: (lookup: RecordLookup) => Promise<FoundRecord | undefined>;
  /** Whether the mailer has read the record on that lane: it has recorded the message, and its own answer stands. */
  mailerHasRead: (lane: TriggerLane, record: FoundRecord) => Promise<boolean>;
  /**
   * How long after the time in its id a send's trigger may have been written: the publish's
   * acknowledgement timeout, and the clocks of other gateway instances writing to the same lane.
   */
  windowMs: number;
  /** How old a message id may be for its trigger to be looked for: the mailer has recorded anything older. */
  maxAgeMs: number;
  /** How long a read of a fresh id waits for the mailer's answer before it looks on the bus too. */
  hedgeMs?: number;
  now?: () => number;
}

/**
 * An id accepted this lately may sit in a backlog the mailer has not reached: its read looks on
 * the bus beside a mailer read that is slow to answer (a backlog's 404 comes late, under load),
 * when no other lookup is under way (the bus reader takes one at a time: a read that guesses must
 * not queue ahead of one that needs it). An older id is looked for on the bus only once the mailer
 * has answered that it has no record.
 */
const FRESH_MS = 10 * 60_000;
const HEDGE_MS = 50;

/**
 * A message as its read shows it before the mailer has recorded it: its trigger, on the bus.
 * Nothing has happened to it yet, so its timeline is empty.
 */
export const acceptedView = (trigger: EmailTriggerCommand): Message => ({
  id: trigger.messageId,
  project_id: trigger.projectId,
  email_key: trigger.emailKey ?? null,
  source: trigger.source ?? 'api',
  template:
    trigger.templateId !== undefined && trigger.templateVersion !== undefined
      ? { id: trigger.templateId, version: trigger.templateVersion }
      : null,
  // Rendering picks the language variant: nothing is rendered yet.
  language: null,
  email: String(trigger.user['email']),
  user_id: typeof trigger.user['user_id'] === 'string' ? trigger.user['user_id'] : null,
  status: 'accepted',
  accepted_at: trigger.acceptedAt,
  subject: null,
  opened: false,
  clicked: false,
  opens: 0,
  clicks: 0,
  tags: trigger.tags ?? [],
  metadata: trigger.metadata ?? {},
  attachments: (trigger.attachments ?? []).map(attachmentInfoOf),
  ...(trigger.sendAt !== undefined ? { send_at: trigger.sendAt } : {}),
  test: trigger.test === true,
  ...(trigger.to !== undefined ? { to: trigger.to } : {}),
  ...(trigger.cc !== undefined ? { cc: trigger.cc } : {}),
  ...(trigger.bcc !== undefined ? { bcc: trigger.bcc } : {}),
  created_at: trigger.acceptedAt,
  updated_at: trigger.acceptedAt,
  timeline: [],
});

/**
 * Messages the gateway accepted that the mailer has not recorded yet, read from their triggers on
 * the bus: a message id from a 200 reads at once, behind any backlog and while the mailer is
 * stopped, at no cost to accepting a send (nothing is written for it but the trigger). The id
 * carries the time it was accepted (messageIds), so its trigger is found by Kafka's time index,
 * a bounded read from there. Once the mailer has read the trigger, its answer stands, a 404
 * included: a message since erased or purged is never shown again from the bus.
 */
export class AcceptedMessages {
  private readonly now: () => number;
  /** Lookups on the bus under way or waiting their turn. */
  private lookups = 0;

  constructor(private readonly deps: AcceptedMessagesDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * A message read: the mailer's record (`recorded`), else the message as accepted, from the bus.
   * While the mailer is away, a message it has not recorded still reads; one it has, once it is
   * back. A lookup on the bus that fails finds nothing: the read answers as the mailer does.
   */
  async recordedOrAccepted(projectId: string, messageId: string, recorded: () => Promise<Message | null>): Promise<Message | null> {
    let lookup: Promise<Message | undefined> | undefined;
    const onBus = () => (lookup ??= this.read(projectId, messageId).catch(() => undefined));
    const at = acceptedTimeOf(messageId);
    const hedge =
      at !== undefined && at >= this.now() - FRESH_MS
        ? setTimeout(() => {
            if (this.lookups === 0) void onBus();
          }, this.deps.hedgeMs ?? HEDGE_MS)
        : undefined;
    try {
      return (await recorded()) ?? (await onBus()) ?? null;
    } catch (error) {
      const found = await onBus();
      if (found) return found;
      throw error;
    } finally {
      clearTimeout(hedge);
    }
  }

  /** The project's message of that id as accepted, if it is on the bus and the mailer has not read it. */
  async read(projectId: string, messageId: string): Promise<Message | undefined> {
    this.lookups++;
    try {
      return await this.lookUp(projectId, messageId);
    } finally {
      this.lookups--;
    }
  }

  private async lookUp(projectId: string, messageId: string): Promise<Message | undefined> {
    const at = acceptedTimeOf(messageId);
    const now = this.now();
    if (at === undefined || at > now + this.deps.windowMs || at < now - this.deps.maxAgeMs) return undefined;
    const quoted = Buffer.from(`"messageId":${JSON.stringify(messageId)}`);
    for (const lane of LANES) {
      const record = await this.deps.find({
        topic: lane,
        from: at,
        until: at + this.deps.windowMs,
        match: (value) => value.includes(quoted),
      });
      if (!record) continue;
      const trigger = JSON.parse(record.value.toString('utf8')) as EmailTriggerCommand;
      // Another project's message is none of this one's.
      if (trigger.messageId !== messageId || trigger.projectId !== projectId) return undefined;
      return (await this.deps.mailerHasRead(lane, record)) ? undefined : acceptedView(trigger);
    }
    return undefined;
  }
}
