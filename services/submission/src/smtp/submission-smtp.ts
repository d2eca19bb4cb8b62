import type { SMTPServer, SMTPServerSession } from 'smtp-server';
import type { Logger } from '@postbus/logger';
import { collectMessage, guardedSmtpServer, smtpReply, type ConnectionGuard, type TlsCertificate } from '@postbus/smtp';
import type { Credentials } from '../domain/ports';
import { outcomeOf, type Submission, type SubmissionOutcome } from '../domain/submission';

export interface SubmissionSmtpOptions {
  /** The name in the greeting. */
  hostname: string;
  /** Implicit TLS (the port 465 server) rather than STARTTLS (the port 587 server). */
  implicitTls: boolean;
  /** The certificate both servers start with (SubmissionServers.useCertificate swaps it later). */
  certificate: TlsCertificate;
  /** The largest message taken (SIZE): larger ones are heard out, not held, and refused with 552. */
  maxMessageBytes: number;
  /** The limits both ports share (libs/smtp). */
  guard: ConnectionGuard;
  submission: Submission;
  /** Counts each message's outcome (the service's metrics). */
  observe?: (outcome: SubmissionOutcome) => void;
  logger: Logger;
}

/** What a session holds once logged in: the credentials each of its messages is sent with. */
const credentialsOf = (session: SMTPServerSession) => session.user as Credentials | undefined;

/**
 * One SMTP submission server: AUTH PLAIN or LOGIN, only over TLS (STARTTLS first on the
 * STARTTLS port: smtp-server refuses AUTH in plain text with 538), with a project id and an API key
 * the gateway checks; MAIL without a login is 530 5.7.0. Each message is read on a worker thread
 * and handed to the gateway, and answered 250 only once the gateway has queued it.
 */
export function createSubmissionSmtpServer(options: SubmissionSmtpOptions): SMTPServer {
  const { submission, logger, maxMessageBytes } = options;
  const originOf = (session: SMTPServerSession) => ({ clientAddress: session.remoteAddress });
  return guardedSmtpServer(options.guard, {
    name: options.hostname,
    banner: 'Postbus SMTP submission',
    secure: options.implicitTls,
    key: options.certificate.key,
    cert: options.certificate.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    authRequiredMessage: '5.7.0 Authentication required',
    // A PTR lookup per connection is a DNS query the client controls the timing of.
    disableReverseLookup: true,
    size: maxMessageBytes,
    logger: false,
    closeTimeout: 5_000,

    onAuth(auth, session, callback) {
      submission
        .login(auth.username ?? '', auth.password ?? '', originOf(session))
        .then((outcome) => {
          if ('refusal' in outcome) return callback(smtpReply(outcome.refusal.code, outcome.refusal.message));
          callback(null, { user: outcome.credentials });
        })
        .catch((error: unknown) => {
          logger.error('smtp login not checked', { error: (error as Error).message });
          callback(smtpReply(454, '4.7.0 Temporary authentication failure, try again later'));
        });
    },

    onData(stream, session, callback) {
      const credentials = credentialsOf(session);
      collectMessage(stream)
        .then(async (raw) => {
          if (stream.sizeExceeded) {
            options.observe?.('refused');
            return callback(smtpReply(552, `5.3.4 Message exceeds the maximum size of ${maxMessageBytes} bytes`));
          }
          // smtp-server takes no MAIL before a login (530); this is a guard, not a path.
          if (!credentials) return callback(smtpReply(530, '5.7.0 Authentication required'));
          const envelope = { rcptTo: session.envelope.rcptTo.map((r) => r.address) };
          const answer = await submission.submit(raw, envelope, credentials, originOf(session));
          options.observe?.(outcomeOf(answer));
          if (answer.code < 400) callback(null, answer.message);
          else callback(smtpReply(answer.code, answer.message));
        })
        .catch((error: unknown) => {
          options.observe?.('deferred');
          logger.error('smtp message not handed to the gateway; the client will retry', { error: (error as Error).message });
          callback(smtpReply(451, '4.3.0 Temporary failure, nothing was accepted; try again later'));
        });
    },
  });
}
