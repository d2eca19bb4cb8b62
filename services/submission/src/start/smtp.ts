import { Counter, type Registry } from 'prom-client';
import { InternalTokens, internalApiSecret, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { closeSmtp, ConnectionGuard, listenSmtp } from '@postbus/smtp';
import { GatewayClient } from '../clients/gateway-client';
import type { SubmissionConfig } from '../config';
import type { SubmissionReader } from '../domain/ports';
import { Submission } from '../domain/submission';
import { createSubmissionSmtpServer } from '../smtp/submission-smtp';
import type { Certificates } from './certificate';

/**
 * The two SMTP servers, STARTTLS (SUBMISSION_PORT) and implicit TLS (SUBMISSION_TLS_PORT), under
 * one set of limits, over one Submission: the gateway client (with the service's internal token)
 * and the reader. A new certificate is swapped into both for the connections that follow.
 */
export async function serveSmtp(
  config: SubmissionConfig,
  logger: Logger,
  { certificates, reader, metrics }: { certificates: Certificates; reader: SubmissionReader; metrics: Registry },
  teardown: Teardown,
): Promise<{ smtpPort: number; smtpTlsPort: number; listening: () => boolean }> {
  const messages = new Counter({
    name: 'postbus_submission_messages_total',
    help: 'submitted messages by outcome: queued (250), refused (5xx) or deferred (4xx: the client retries)',
    labelNames: ['outcome'] as const,
    registers: [metrics],
  });
  const tokens = new InternalTokens(internalApiSecret(config.INTERNAL_API_SECRET, logger), 'submission');
  const gateway = new GatewayClient(config.GATEWAY_URL, tokens, config.SUBMISSION_GATEWAY_TIMEOUT_MS);
  const submission = new Submission(gateway, reader, logger);
  const guard = new ConnectionGuard({
    limits: {
      connections: config.SUBMISSION_MAX_CONNECTIONS,
      connectionsPerNetwork: config.SUBMISSION_CONNECTIONS_PER_NETWORK,
      connectionsPerMinute: config.SUBMISSION_CONNECTIONS_PER_MINUTE,
      commandsPerConnection: config.SUBMISSION_COMMANDS_PER_CONNECTION,
      transactionsPerConnection: config.SUBMISSION_TRANSACTIONS_PER_CONNECTION,
      recipientsPerTransaction: config.SUBMISSION_RECIPIENTS_PER_TRANSACTION,
      connectionLifetimeMs: config.SUBMISSION_CONNECTION_LIFETIME_MS,
    },
    label: 'submission',
    logger,
  });
  const server = (implicitTls: boolean) =>
    createSubmissionSmtpServer({
      hostname: config.SUBMISSION_HOSTNAME,
      implicitTls,
      certificate: certificates.current,
      maxMessageBytes: config.SUBMISSION_MAX_MESSAGE_BYTES,
      guard,
      submission,
      observe: (outcome) => messages.inc({ outcome }),
      logger,
    });
  const servers = [server(false), server(true)] as const;
  let listening = true;
  for (const smtp of servers) {
    // Connection-level failures (a client resetting the socket, a failed TLS handshake) are the client's business.
    smtp.on('error', (error: Error) => logger.debug('submission SMTP connection error', { error: error.message }));
    teardown.add(async () => {
      listening = false;
      await closeSmtp(smtp);
    });
  }
  const smtpPort = await listenSmtp(servers[0], config.SUBMISSION_PORT, config.SUBMISSION_HOST);
  const smtpTlsPort = await listenSmtp(servers[1], config.SUBMISSION_TLS_PORT, config.SUBMISSION_HOST);
  certificates.onChange((certificate) => {
    for (const smtp of servers) smtp.updateSecureContext({ key: certificate.key, cert: certificate.cert });
  });
  return { smtpPort, smtpTlsPort, listening: () => listening };
}
