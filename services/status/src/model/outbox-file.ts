import type { OutboxStore, PendingNotification } from '../domain/notification-outbox';
import { JsonFile } from './snapshot-file';

/** The outbox file beside the snapshot file: `…/status-snapshot.json` → `…/status-snapshot-outbox.json`. */
export const outboxPathFor = (snapshotFile: string): string => `${snapshotFile.replace(/\.json$/i, '')}-outbox.json`;

/**
 * The pending status notifications on disk (`domain/notification-outbox.ts` keeps them), rewritten
 * whole on each change: beside the snapshot, not in the database, so they go out while it is down.
 */
export class OutboxFile extends JsonFile<PendingNotification[]> implements OutboxStore {}
