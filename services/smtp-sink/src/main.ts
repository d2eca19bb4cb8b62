import { loadConfig } from '@postbus/config';
import { exitOnFatal, onShutdown } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { start } from './app';
import { SmtpSinkConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig(SmtpSinkConfig);
  const logger = createLogger({ service: 'smtp-sink', level: config.LOG_LEVEL });
  exitOnFatal(logger);
  const sink = await start({ config, logger });
  onShutdown(['SIGTERM', 'SIGINT'], () => sink.stop(), logger);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
