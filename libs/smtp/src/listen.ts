import type { AddressInfo } from 'node:net';
import type { SMTPServer } from 'smtp-server';

/** Starts an SMTP server listening on `host`:`port` (0: any free one); resolves with the port it got, rejects if it cannot listen. */
export function listenSmtp(server: SMTPServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.server.address() as AddressInfo).port);
    });
  });
}

/** Closes an SMTP server: no new connection, and those open are ended (after the server's closeTimeout at most). */
export const closeSmtp = (server: SMTPServer): Promise<void> => new Promise((resolve) => server.close(() => resolve()));
