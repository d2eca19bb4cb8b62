import { loadConfig } from '@postbus/config';
import { exitOnFatal, onShutdown } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { start } from './app';
import { MailerConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig(MailerConfig);
  const logger = createLogger({ service: 'mailer', level: config.LOG_LEVEL });
  exitOnFatal(logger);
  const service = await start({ config, logger });
  onShutdown(['SIGTERM', 'SIGINT'], () => service.stop(), logger);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
