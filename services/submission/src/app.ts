import { createMetricsRegistry, startInSteps } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { SubmissionConfig } from './config';
import { loadCertificates } from './start/certificate';
import { serveHttp } from './start/http';
import { startReader } from './start/reader';
import { serveSmtp } from './start/smtp';

export interface SubmissionService {
  /** The internal HTTP server's port (health, metrics). */
  port: number;
  /** The STARTTLS port (587 in production) and the implicit TLS port (465). */
  smtpPort: number;
  smtpTlsPort: number;
  /** The certificate was made by the service (development, none configured). */
  selfSigned: boolean;
  stop(): Promise<void>;
}

/**
 * Starts SMTP submission: any app's mailer (Nodemailer, Django, Rails, Laravel, smtplib, swaks)
 * logs in with a project id and an API key and sends; each message becomes a content send
 * through the gateway's public API, the one accept path of every send. It has no database and no
 * bus of its own: the gateway validates, checks the sender domain, suppresses, limits and queues.
 *
 * Its steps: the certificate, the reader threads, both SMTP ports, then the internal server, so
 * /readyz answers 200 only once both ports listen. The stop undoes them newest first.
 */
export function start({ config, logger }: { config: SubmissionConfig; logger: Logger }): Promise<SubmissionService> {
  return startInSteps(async (teardown) => {
    const metrics = createMetricsRegistry('submission');
    const certificates = await loadCertificates(config, logger, teardown);
    const reader = startReader(config, logger, teardown);
    const { smtpPort, smtpTlsPort, listening } = await serveSmtp(config, logger, { certificates, reader, metrics }, teardown);
    const { port } = await serveHttp(config, logger, { metrics, listening }, teardown);
    logger.info('submission service started', {
      port,
      smtpPort,
      smtpTlsPort,
      smtpHost: config.SUBMISSION_HOST,
      selfSigned: certificates.selfSigned,
    });
    return { port, smtpPort, smtpTlsPort, selfSigned: certificates.selfSigned };
  });
}
