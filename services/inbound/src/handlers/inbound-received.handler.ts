import type { ReturnPathTokens } from '@postbus/crypto';
import { defineHandler, type MessageContext, type Publisher } from '@postbus/bus';
import { Topics, type MessageData } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import { feedbackOf, receivedRecordOf, type ReadReport, type ReceivedRecord, type Verdict } from '../domain/feedback';
import type { ReceivedMail } from '../model/received-mail.repository';

export interface InboundReceivedDeps {
  tokens: ReturnPathTokens;
  publisher: Publisher;
  received: ReceivedMail;
  logger: Logger;
  /** Reads a mail off the event loop, within a time budget (a ReportParser's read). */
  readReport: ReadReport;
}

type Item = { data: MessageData<'inbound.received'>; ctx: MessageContext };

/**
 * Reads a mail the MX stored and publishes the feedback it carries (keyed by message id, so all
 * feedback about one message is handled in order). A mail that carries none is recorded with the
 * reason and dropped: no mail can fail this handler into retries. Each is read on a worker thread
 * within a time budget (`readReport`): one that passes it is recorded as unreadable and dropped,
 * and no read holds the event loop the consumer's heartbeats and the MX share.
 *
 * A run of mails (a burst of reports) is read, then its feedback published in the run's order side
 * by side (the publisher puts it in one produce request) and its records stored with one insert:
 * two round trips for the run instead of two per mail.
 */
export const inboundReceivedHandler = ({ tokens, publisher, received, logger, readReport }: InboundReceivedDeps) => {
  const verdictOf = ({ data }: Item): Promise<Verdict> =>
    feedbackOf({ raw: Buffer.from(data.raw, 'base64'), rcptTo: data.rcptTo, receivedAt: data.receivedAt }, tokens, readReport);
  const recordOf = ({ data, ctx }: Item, verdict: Verdict): { id: string; record: ReceivedRecord } => {
    if (verdict.ignored) logger.info('inbound mail changes nothing', { reason: verdict.ignored, report: verdict.report });
    return { id: ctx.id, record: receivedRecordOf(verdict, data) };
  };
  /** Publishes every verdict's feedback, in order, and resolves once the broker has acknowledged all of it. */
  const publish = (verdicts: Verdict[]) =>
    Promise.all(
      verdicts.flatMap((verdict) => verdict.feedback.map((f) => publisher.publish(Topics.Feedback, f.type, f.data.messageId, f.data))),
    );
  return defineHandler({
    topic: Topics.InboundMail,
    type: 'inbound.received',
    handle: async (data, ctx) => {
      const verdict = await verdictOf({ data, ctx });
      await publish([verdict]);
      const { id, record } = recordOf({ data, ctx }, verdict);
      await received.record(id, record);
    },
    handleBatch: async (items) => {
      const verdicts = await Promise.all(items.map(verdictOf));
      await publish(verdicts);
      await received.recordMany(items.map((item, i) => recordOf(item, verdicts[i]!)));
      return [];
    },
  });
};
