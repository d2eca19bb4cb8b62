import type { Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { readCertificate, selfSignedCertificate, watchCertificate, type TlsCertificate } from '@postbus/smtp';
import type { SubmissionConfig } from '../config';

/** The certificate both ports offer, and how to hear of a new one. */
export interface Certificates {
  current: TlsCertificate;
  /** Made by the service itself (development, no files configured): clients must be told to accept it. */
  selfSigned: boolean;
  /** Hands each new certificate the files get to `use` (nothing without files). */
  onChange(use: (certificate: TlsCertificate) => void): void;
}

/**
 * The certificate of SUBMISSION_TLS_KEY_FILE and SUBMISSION_TLS_CERT_FILE, watched for changes;
 * without them, in development, a self-signed one made for SUBMISSION_HOSTNAME (npm start keeps
 * one under .data/ and names it in those variables). In production, without them, the service
 * does not start: logins carry API keys, so it takes them over TLS only, with a real certificate.
 */
export async function loadCertificates(config: SubmissionConfig, logger: Logger, teardown: Teardown): Promise<Certificates> {
  const { SUBMISSION_TLS_KEY_FILE: keyFile, SUBMISSION_TLS_CERT_FILE: certFile } = config;
  if (Boolean(keyFile) !== Boolean(certFile))
    throw new Error('SUBMISSION_TLS_KEY_FILE and SUBMISSION_TLS_CERT_FILE are set together: a key and its certificate');
  if (!keyFile || !certFile) {
    if (process.env['NODE_ENV'] === 'production')
      throw new Error(
        'SUBMISSION_TLS_KEY_FILE and SUBMISSION_TLS_CERT_FILE must be set when NODE_ENV=production: SMTP submission takes API keys, over TLS only, with a certificate clients trust',
      );
    logger.warn('no SUBMISSION_TLS_KEY_FILE / SUBMISSION_TLS_CERT_FILE: using a self-signed certificate (development only)', {
      hostname: config.SUBMISSION_HOSTNAME,
    });
    return { current: await selfSignedCertificate(config.SUBMISSION_HOSTNAME), selfSigned: true, onChange: () => undefined };
  }
  let current: TlsCertificate;
  try {
    current = readCertificate(keyFile, certFile);
  } catch (error) {
    throw new Error(`SUBMISSION_TLS_KEY_FILE / SUBMISSION_TLS_CERT_FILE do not make a certificate: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const users: Array<(certificate: TlsCertificate) => void> = [];
  const watch = watchCertificate({
    keyFile,
    certFile,
    intervalMs: config.SUBMISSION_TLS_WATCH_MS,
    onChange: (certificate) => {
      current = certificate;
      for (const use of users) use(certificate);
    },
    logger,
  });
  teardown.add(() => watch.stop());
  return {
    get current() {
      return current;
    },
    selfSigned: false,
    onChange: (use) => users.push(use),
  };
}
