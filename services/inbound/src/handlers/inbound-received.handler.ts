import type { ReturnPathTokens } from '@postbus/crypto';
import { defineHandler, type Publisher } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import { feedbackOf } from '../domain/feedback';
import type { ReceivedMail } from '../model/received-mail.repository';

export interface InboundReceivedDeps {
  tokens: ReturnPathTokens;
  publisher: Publisher;
  received: ReceivedMail;
  logger: Logger;
}

/**
 * Reads a mail the MX stored and publishes the feedback it carries (keyed by message id, so all
 * feedback about one message is handled in order). A mail that carries none is recorded with the
 * reason and dropped: no mail can fail this handler into retries.
 */
export const inboundReceivedHandler = ({ tokens, publisher, received, logger }: InboundReceivedDeps) =>
  defineHandler({
    topic: Topics.InboundMail,
    type: 'inbound.received',
    handle: async (data, ctx) => {
      const verdict = await feedbackOf({ raw: Buffer.from(data.raw, 'base64'), rcptTo: data.rcptTo, receivedAt: data.receivedAt }, tokens);
      for (const feedback of verdict.feedback)
        await publisher.publish(Topics.Feedback, feedback.type, feedback.data.messageId, feedback.data);
      await received.record(ctx.id, {
        receivedAt: new Date(data.receivedAt),
        ...(verdict.report ? { report: verdict.report } : {}),
        ...(verdict.ignored ? { ignored: verdict.ignored } : {}),
        messageIds: [...new Set(verdict.feedback.map((f) => f.data.messageId))],
        feedback: verdict.feedback.map((f) => f.type),
        truncated: data.truncated,
      });
      if (verdict.ignored) logger.info('inbound mail changes nothing', { reason: verdict.ignored, report: verdict.report });
    },
  });
