import type { Logger } from '@postbus/logger';
import type { CallOrigin, Credentials, Gateway, GatewayAnswer, SmtpAnswer, SubmissionReader } from './ports';
import {
  acceptedReply,
  INVALID_CREDENTIALS,
  loginOutcome,
  messageIdOf,
  PROJECT_ID,
  refusalOf,
  serviceTokenRefused,
  type LoginOutcome,
} from './replies';
import type { Envelope } from './submitted-mail';

/** How a submitted message ended, for the service's metrics: queued, refused for good, or to be retried by the client. */
export type SubmissionOutcome = 'queued' | 'refused' | 'deferred';

export const outcomeOf = (answer: SmtpAnswer): SubmissionOutcome =>
  answer.code < 400 ? 'queued' : answer.code < 500 ? 'deferred' : 'refused';

/**
 * What SMTP submission does: a login checked by the gateway, and each message read into its
 * content sends and handed to the gateway, the one accept path of every send. The 250 comes only
 * once the gateway has answered 200 for every send of the message (each durably queued, as an
 * HTTP send's 200); anything else is the reply of the first send that was not accepted.
 */
export class Submission {
  constructor(
    private readonly gateway: Gateway,
    private readonly reader: SubmissionReader,
    private readonly logger: Logger,
  ) {}

  /**
   * AUTH PLAIN / LOGIN: the user name is the project id, the password an API key of the client
   * that owns it; or the password is a key bound to a project, and the user name anything.
   */
  async login(username: string, password: string, origin: CallOrigin): Promise<LoginOutcome> {
    // A user name with a colon cannot travel in HTTP Basic; an empty one or password names nothing.
    if (!username || !password || username.includes(':')) return { refusal: INVALID_CREDENTIALS };
    const credentials: Credentials = { projectId: username, apiKey: password };
    const answer = await this.gateway.whoami(credentials, origin);
    this.checkToken(answer);
    const outcome = loginOutcome(answer, credentials);
    // The user name is what the client typed: logged only when it has a project id's shape (never a key typed in the wrong field).
    if ('refusal' in outcome)
      this.logger.info('smtp login refused', {
        projectId: PROJECT_ID.test(username) ? username : '(not a project id)',
        code: outcome.refusal.code,
      });
    return outcome;
  }

  /** DATA: the reply to one message, its 250 naming the message id(s) the gateway gave. */
  async submit(raw: Buffer, envelope: Envelope, credentials: Credentials, origin: CallOrigin): Promise<SmtpAnswer> {
    const read = await this.reader.read({ raw, envelope });
    if ('refusal' in read) {
      this.logger.info('smtp message refused before sending', {
        projectId: credentials.projectId,
        code: read.refusal.code,
        bytes: raw.length,
      });
      return read.refusal;
    }
    const messageIds: string[] = [];
    for (const send of read.sends) {
      const answer = await this.gateway.send(credentials, send, origin);
      this.checkToken(answer);
      if (answer.status !== 200) {
        const refusal = refusalOf(answer);
        // Earlier sends of a message split per blind recipient stay queued; the retry of the
        // message gets their ids back (their idempotency keys are the same), and sends the rest.
        this.logger.info('smtp message not accepted by the gateway', {
          projectId: credentials.projectId,
          status: answer.status,
          code: refusal.code,
          ...(answer.error ? { error: answer.error } : {}),
          queuedBefore: messageIds.length,
        });
        return refusal;
      }
      messageIds.push(messageIdOf(answer));
    }
    this.logger.info('smtp message queued', { projectId: credentials.projectId, messageIds, bytes: raw.length });
    return acceptedReply(messageIds);
  }

  /** A gateway that refuses the service's own token refuses every client: said loudly, once per call. */
  private checkToken(answer: GatewayAnswer): void {
    if (serviceTokenRefused(answer))
      this.logger.error('the gateway refused this service’s X-Postbus-Submission token: is INTERNAL_API_SECRET the gateway’s?');
  }
}
