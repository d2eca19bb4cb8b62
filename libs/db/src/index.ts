export type { Connection } from 'mongoose';
export { GroupCommit } from './group-commit';
export { inParallel } from './in-parallel';
export { deleteByIds, findByIds } from './by-ids';
export { insertEach, insertNew, isDuplicateKeyError } from './duplicate-key';
export { DueQueue, type DueItem } from './due-queue';
export { KeyedSerializer } from './keyed-serializer';
export { SequenceLists, type ListAppend, type ListEntry, type ListPage, type PageOptions } from './sequence-lists';
export { KnownUsers, knownUserKeys, type KnownUser, type UserName } from './known-users';
export { connectDb, pingDb, type DbOptions } from './connect';
export { runSeedCli, seedCommand, type SeedCli, type SeedIo, type SeedRequest } from './seed-cli';

export {
  growing,
  isPointFilter,
  offRequestPath,
  onRequestPath,
  recordQueries,
  UnboundedQueryError,
  type QueryAuditMode,
  type RecordedQuery,
} from './query-audit';
