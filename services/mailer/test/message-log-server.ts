import type { Server } from 'node:http';
import { startInternalServer } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { testInternalApiSecret } from '@postbus/testing';
import { internalApi } from '../src/http/internal-api';
import { MessageLog } from '../src/domain/message-log';
import type { ScheduledSends } from '../src/domain/scheduled-sends';
import type { MessageLists } from '../src/model/message-list.repository';
import type { MessageStore } from '../src/model/message.repository';
import type { StatusRollups } from '../src/model/rollup.repository';
import type { Suppressions } from '../src/model/suppression.repository';
import { noScheduledSends } from './no-scheduled-sends';

/** The mailer's internal API over these stores, as the gateway reads it (QUERY_AUDIT strict: every read by `_id`). */
export async function startMessageLogServer(
  stores: { store: MessageStore; lists: MessageLists; rollups: StatusRollups; suppressions: Suppressions; scheduled?: ScheduledSends },
  logger: Logger,
): Promise<{ server: Server; url: string }> {
  const { server, port } = await startInternalServer({
    service: 'mailer',
    config: { PORT: 0, INTERNAL_HOST: '127.0.0.1', INTERNAL_API_SECRET: testInternalApiSecret, QUERY_AUDIT: 'strict' },
    checks: {},
    handlers: [
      internalApi(new MessageLog(stores.store, stores.lists), stores.rollups, stores.suppressions, stores.scheduled ?? noScheduledSends),
    ],
    logger,
  });
  return { server, url: `http://127.0.0.1:${port}` };
}
