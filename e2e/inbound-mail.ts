import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { repoRoot, waitFor } from '@postbus/testing';
import type { RunningSystem } from './system';

/** A mail the inbound MX reads, as it arrived over SMTP (services/inbound/fixtures). */
export const inboundFixture = (path: string): Buffer => readFileSync(join(repoRoot, 'services/inbound/fixtures', path));

/** Mails `raw` to the system's inbound MX for `to`, as a remote MTA would (null sender), once the MX knows the domain. */
export async function mailToInbound(system: RunningSystem, to: string, raw: Buffer): Promise<void> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: system.inbound!.smtpPort, secure: false, ignoreTLS: true });
  try {
    // The MX learns the return-path domains from the catalog: until then it answers 550.
    await waitFor(
      async () => {
        try {
          await transport.sendMail({ envelope: { from: '', to: [to] }, raw });
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
