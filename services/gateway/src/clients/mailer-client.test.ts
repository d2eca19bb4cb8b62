import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceUnavailableError } from '@postbus/errors';
import { InternalTokens } from '@postbus/http';
import { MailerClient } from './mailer-client';

describe('MailerClient timeouts', () => {
  let server: Server;
  let client: MailerClient;
  const answerAfterMs = 250;

  beforeAll(async () => {
    // A mailer that takes longer than the client's timeout to answer anything.
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        setTimeout(() => {
          if (req.method === 'PUT') res.writeHead(204).end();
          else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        }, answerAfterMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    client = new MailerClient(`http://127.0.0.1:${port}`, new InternalTokens('a'.repeat(43), 'gateway'), 150);
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('gives an attachment store more than its usual timeout, which a read still has', async () => {
    await expect(client.storeAttachments('p1', 'msg_1', [new Uint8Array(1000)])).resolves.toBeUndefined();
    await expect(client.message('p1', 'msg_1')).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});
