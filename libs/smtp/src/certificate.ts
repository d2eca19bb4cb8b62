import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import { generate } from 'selfsigned';
import type { Logger } from '@postbus/logger';

/** A PEM private key and its certificate chain, as a TLS server takes them. */
export interface TlsCertificate {
  key: Buffer;
  cert: Buffer;
}

/**
 * A self-signed certificate for `hostname` (and localhost, 127.0.0.1 and ::1), valid a year: what
 * an SMTP server offers in development, where no certificate is configured. Clients must be told
 * to accept it (Nodemailer `tls: { rejectUnauthorized: false }`, swaks `--tls` does by default).
 */
export async function selfSignedCertificate(hostname: string): Promise<TlsCertificate> {
  const names = [...new Set([hostname, 'localhost'])];
  const notAfterDate = new Date(Date.now() + 365 * 24 * 60 * 60 * 1000);
  const pems = await generate([{ name: 'commonName', value: hostname }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...names.map((value) => (isIP(value) ? { type: 7 as const, ip: value } : { type: 2 as const, value })),
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { key: Buffer.from(pems.private), cert: Buffer.from(pems.cert) };
}

/** Reads a key and certificate from PEM files, and checks that they make a TLS context (the key matches the certificate). */
export function readCertificate(keyFile: string, certFile: string): TlsCertificate {
  const certificate = { key: readFileSync(keyFile), cert: readFileSync(certFile) };
  createSecureContext(certificate);
  return certificate;
}

export interface CertificateWatch {
  /** Stops watching the files. */
  stop(): void;
}

/**
 * Watches a key and a certificate file (their stat, every `intervalMs`: a Kubernetes Secret
 * volume swaps a symbolic link, which file events miss) and hands each new pair that makes a TLS
 * context to `onChange`. A pair that does not (the key was replaced and the certificate not yet)
 * is skipped with a warning; the old one stays in use until both files agree.
 */
export function watchCertificate(options: {
  keyFile: string;
  certFile: string;
  intervalMs: number;
  onChange: (certificate: TlsCertificate) => void;
  logger: Logger;
}): CertificateWatch {
  const { keyFile, certFile, intervalMs, onChange, logger } = options;
  const reload = () => {
    let certificate: TlsCertificate;
    try {
      certificate = readCertificate(keyFile, certFile);
    } catch (error) {
      logger.warn('TLS certificate files changed but do not make a certificate yet; the previous one stays in use', {
        error: (error as Error).message,
      });
      return;
    }
    onChange(certificate);
    logger.info('TLS certificate reloaded: new connections get the new one');
  };
  const listener = (current: { mtimeMs: number; ino: number; size: number }, previous: { mtimeMs: number; ino: number; size: number }) => {
    if (current.mtimeMs !== previous.mtimeMs || current.ino !== previous.ino || current.size !== previous.size) reload();
  };
  const watchOptions = { interval: intervalMs, persistent: false };
  watchFile(keyFile, watchOptions, listener);
  watchFile(certFile, watchOptions, listener);
  return {
    stop() {
      unwatchFile(keyFile, listener);
      unwatchFile(certFile, listener);
    },
  };
}
