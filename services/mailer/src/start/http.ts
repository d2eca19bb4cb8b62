import { pingDb } from '@postbus/db';
import { closeServer, startInternalServer, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { MailerConfig } from '../config';
import { MessageLog } from '../domain/message-log';
import { attachmentsApi } from '../http/attachments-api';
import { internalApi } from '../http/internal-api';
import type { MailerDomain } from './consumers';
import type { Infrastructure } from './infrastructure';
import type { Stores } from './stores';

/** Starts the internal API: the message log, the attachments, the suppressions and the scheduled sends, with health and metrics. */
export async function serveHttp(
  config: MailerConfig,
  logger: Logger,
  { db, bus, metrics }: Pick<Infrastructure, 'db' | 'bus' | 'metrics'>,
  { attachments, lists, store, rollups, suppressions }: Stores,
  { scheduled }: Pick<MailerDomain, 'scheduled'>,
  teardown: Teardown,
): Promise<{ port: number }> {
  const { server, port } = await startInternalServer({
    metrics,
    service: 'mailer',
    config,
    checks: { database: () => pingDb(db), bus: () => bus.publisher.healthy() },
    handlers: [attachmentsApi(attachments, lists, store), internalApi(new MessageLog(store, lists), rollups, suppressions, scheduled)],
    logger,
  });
  teardown.add(() => closeServer(server));
  return { port };
}
