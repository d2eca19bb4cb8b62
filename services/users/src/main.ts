import { loadConfig } from '@postbus/config';
import { exitOnFatal, onShutdown } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { start } from './app';
import { UsersConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig(UsersConfig);
  const logger = createLogger({ service: 'users', level: config.LOG_LEVEL });
  exitOnFatal(logger);
  const service = await start({ config, logger });
  onShutdown(['SIGTERM', 'SIGINT'], () => service.stop(), logger);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
