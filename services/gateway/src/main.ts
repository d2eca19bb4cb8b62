import { loadConfig } from '@postbus/config';
import { exitOnFatal, onShutdown } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { start } from './app';
import { GatewayConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig(GatewayConfig);
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  exitOnFatal(logger);
  const gateway = await start({ config, logger });
  onShutdown(['SIGTERM', 'SIGINT'], () => gateway.stop(), logger);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
