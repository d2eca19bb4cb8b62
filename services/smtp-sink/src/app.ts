import type { AddressInfo } from 'node:net';
import express from 'express';
import type { SMTPServer } from 'smtp-server';
import { closeServer, listen, notFoundHandler, problemHandler, requestId } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { SmtpSinkConfig } from './config';
import { FaultInjector } from './domain/fault';
import { sinkApi } from './http/sink-api';
import { MailpitViews } from './domain/mailpit-views';
import { createSmtpServer } from './smtp/smtp-server';
import { MessageStore } from './model/message.repository';

export interface SmtpSink {
  smtpPort: number;
  httpPort: number;
  stop(): Promise<void>;
}

function listenSmtp(server: SMTPServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.server.address() as AddressInfo).port);
    });
  });
}

const closeSmtp = (server: SMTPServer) => new Promise<void>((resolve) => server.close(() => resolve()));

/** Starts the SMTP server, then the HTTP API; /readyz answers 200 only while both listen. */
export async function start({ config, logger }: { config: SmtpSinkConfig; logger: Logger }): Promise<SmtpSink> {
  const store = new MessageStore(config.SINK_MAX_MESSAGES);
  const faults = new FaultInjector();
  const smtp = createSmtpServer({ store, faults, maxMessageBytes: config.SINK_MAX_MESSAGE_BYTES });
  // Connection-level failures (a client resetting the socket) are the client's business.
  smtp.on('error', (error: Error) => logger.debug('smtp connection error', { error: error.message }));
  const smtpPort = await listenSmtp(smtp, config.SMTP_PORT, config.SMTP_HOST);

  let ready = true;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(requestId);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'stopping' });
  });
  app.use(sinkApi({ store, views: new MailpitViews(store), faults, logger }));
  app.use(notFoundHandler);
  app.use(problemHandler(logger));
  const { server, port: httpPort } = await listen(app, config.PORT, config.HTTP_HOST).catch(async (error: unknown) => {
    await closeSmtp(smtp);
    throw error;
  });
  logger.info('smtp-sink started', { smtpPort, httpPort, maxMessages: config.SINK_MAX_MESSAGES });

  return {
    smtpPort,
    httpPort,
    async stop() {
      ready = false;
      await Promise.all([closeSmtp(smtp), closeServer(server)]);
    },
  };
}
