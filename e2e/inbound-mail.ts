import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { repoRoot, waitFor } from '@postbus/testing';
import type { RunningSystem } from './system';

/** A mail the inbound MX reads, as it arrived over SMTP (services/inbound/fixtures). */
export const inboundFixture = (path: string): Buffer => readFileSync(join(repoRoot, 'services/inbound/fixtures', path));

/**
 * Mails `raw` to the system's inbound MX for `to`, as a remote MTA would (null sender). The MX learns
 * the return-path domains from the catalog and answers 550 until then: by default the mail is sent
 * again until it is taken; with `refusal: 'fails'` (the MX knows the domain already) a 550 fails.
 */
export async function mailToInbound(
  system: RunningSystem,
  to: string,
  raw: Buffer,
  options: { refusal?: 'retried' | 'fails' } = {},
): Promise<void> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: system.inbound!.smtpPort, secure: false, ignoreTLS: true });
  const send = () => transport.sendMail({ envelope: { from: '', to: [to] }, raw });
  try {
    if (options.refusal === 'fails') {
      await send();
      return;
    }
    await waitFor(
      async () => {
        try {
          await send();
          return true;
        } catch (error) {
          if ((error as { responseCode?: number }).responseCode === 550) return undefined;
          throw error;
        }
      },
      { timeoutMs: 30_000, intervalMs: 500, what: `the inbound MX to take mail for ${to}` },
    );
  } finally {
    transport.close();
  }
}
