import type { ReturnPathTokens } from '@postbus/crypto';
import type { Publisher } from '@postbus/bus';
import { Topics, type MessageData } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import { feedbackOf, receivedRecordOf, type ReadReport, type Verdict } from './feedback';
import type { ReceivedRecords } from './ports';

export interface ReportIntakeDeps {
  tokens: ReturnPathTokens;
  publisher: Pick<Publisher, 'publish'>;
  received: ReceivedRecords;
  logger: Logger;
  /** Reads a mail off the event loop, within a time budget (a ReportParser's read). */
  readReport: ReadReport;
}

/** One mail the MX stored (`inbound.received`), under the id of the bus message that carried it. */
export interface StoredMail {
  id: string;
  mail: MessageData<'inbound.received'>;
}

/**
 * Reads the mail the MX stored and publishes the feedback it carries (keyed by message id, so all
 * feedback about one message is handled in order). A mail that carries none is recorded with the
 * reason and dropped: no mail can fail its consumer into retries. Each is read on a worker thread
 * within a time budget (`readReport`): one that passes it is recorded as unreadable and dropped,
 * and no read holds the event loop the consumer's heartbeats and the MX share.
 *
 * A run of mails (a burst of reports) is read, then its feedback published in the run's order side
 * by side (the publisher puts it in one produce request) and its records stored with one insert:
 * two round trips for the run instead of two per mail.
 */
export class ReportIntake {
  constructor(private readonly deps: ReportIntakeDeps) {}

  async take(run: StoredMail[]): Promise<void> {
    const { tokens, publisher, received, logger, readReport } = this.deps;
    const verdicts: Verdict[] = await Promise.all(
      run.map(({ mail }) =>
        feedbackOf({ raw: Buffer.from(mail.raw, 'base64'), rcptTo: mail.rcptTo, receivedAt: mail.receivedAt }, tokens, readReport),
      ),
    );
    // Resolves once the broker has acknowledged every verdict's feedback, published in order.
    await Promise.all(
      verdicts.flatMap((verdict) => verdict.feedback.map((f) => publisher.publish(Topics.Feedback, f.type, f.data.messageId, f.data))),
    );
    await received.recordMany(
      run.map(({ id, mail }, i) => {
        const verdict = verdicts[i]!;
        if (verdict.ignored) logger.info('inbound mail changes nothing', { reason: verdict.ignored, report: verdict.report });
        return { id, record: receivedRecordOf(verdict, mail) };
      }),
    );
  }
}
