import type { ReceivedRecord } from './feedback';

/** Where the record of each mail read is kept (its verdict, never the mail). */
export interface ReceivedRecords {
  /** Each `id` is the id of the bus message that carried the mail. */
  recordMany(records: Array<{ id: string; record: ReceivedRecord }>): Promise<void>;
}
