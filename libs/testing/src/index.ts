export {
  ensureInfrastructure,
  stopInfrastructure,
  type LocalComponent,
  portOpen,
  repoRoot,
  dataDir,
  defaultKafkaBrokers,
  defaultMongoUrl,
} from './infra';
export { uniqueName, sleep, waitFor } from './wait';
export { freePort, startService, type ServiceProcess } from './processes';
export { recordTopics, TopicRecorder, type RecordedMessage } from './kafka';
export { call, basicAuth, type CallResult } from './http';
export { startDnsServer, type LocalDnsServer, type RecordType } from './dns-server';
export { SinkClient, startSmtpSink, type SmtpSink, type SinkFault, type SinkMessage, type SinkMessageSummary } from './smtp-sink';
export { internalAuthorization, otherLocalAddresses, testInternalApiSecret } from './internal-api';
export { LOCAL_WEBHOOK_ALLOWED_HOSTS } from './local-settings';
export { testRunToken, registerTestRun, removeTestRunData, cleanUpTestRuns, type RemovedTestData } from './test-run';
export { databaseName, systemEnv, type SystemEnvOptions, type SystemService } from './system-env';
export { inProcessEnv, shutDown, uniqueDbName, type Started } from './in-process';
export { erasureRuns } from './erasure';
