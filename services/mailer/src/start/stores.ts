import { createHmac, randomBytes } from 'node:crypto';
import type { Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { MailerConfig } from '../config';
import { MarkerWatch } from '../domain/marker-watch';
import { AttachmentStore } from '../model/attachment.repository';
import { CatalogProjection } from '../model/catalog.repository';
import { ErasuresDone } from '../model/erasure.repository';
import { MessageLists } from '../model/message-list.repository';
import { MessageStore } from '../model/message.repository';
import { RetryQueue } from '../model/retry.repository';
import { StatusRollups } from '../model/rollup.repository';
import { ScheduleQueue } from '../model/schedule.repository';
import { Suppressions } from '../model/suppression.repository';
import type { Infrastructure } from './infrastructure';

/** The mailer's repositories, initialised, and the filter of the suppression markers the suppressions consult. */
export interface Stores {
  catalog: CatalogProjection;
  store: MessageStore;
  markers: MarkerWatch;
  suppressions: Suppressions;
  retries: RetryQueue;
  erasuresDone: ErasuresDone;
  lists: MessageLists;
  rollups: StatusRollups;
  attachments: AttachmentStore;
  schedule: ScheduleQueue;
}

/** Makes and initialises the repositories, and starts the rollups' flushes. */
export async function openStores(
  config: Pick<MailerConfig, 'ERASURE_AUDIT_KEY' | 'ATTACHMENT_QUOTA_BYTES'>,
  logger: Logger,
  { db }: Pick<Infrastructure, 'db'>,
  teardown: Teardown,
): Promise<Stores> {
  const catalog = new CatalogProjection(db);
  const store = new MessageStore(db);
  if (!config.ERASURE_AUDIT_KEY)
    logger.warn('ERASURE_AUDIT_KEY is not set: the suppressions an erased address keeps last only as long as this process');
  const auditKey = config.ERASURE_AUDIT_KEY || randomBytes(32).toString('hex');
  const markers = new MarkerWatch();
  const suppressions = new Suppressions(db, (email) => createHmac('sha256', auditKey).update(email).digest('hex'), markers);
  const retries = new RetryQueue(db);
  const erasuresDone = new ErasuresDone(db);
  const lists = new MessageLists(db);
  const rollups = new StatusRollups(db);
  const attachments = new AttachmentStore(db, config.ATTACHMENT_QUOTA_BYTES);
  const schedule = new ScheduleQueue(db);
  await Promise.all([
    catalog.init(),
    store.init(),
    suppressions.init(),
    retries.init(),
    erasuresDone.init(),
    lists.init(),
    rollups.init(),
    attachments.init(),
    schedule.init(),
  ]);
  rollups.start();
  // Its last flush comes after the bus has stopped the consumers, whose last handlers count too.
  teardown.add(() => rollups.stop());
  return { catalog, store, markers, suppressions, retries, erasuresDone, lists, rollups, attachments, schedule };
}
