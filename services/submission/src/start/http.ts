import type { Registry } from 'prom-client';
import { closeServer, startInternalServer, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { SubmissionConfig } from '../config';

/** The internal server: health, readiness (both SMTP ports listen) and metrics; no routes of its own. */
export async function serveHttp(
  config: SubmissionConfig,
  logger: Logger,
  { metrics, listening }: { metrics: Registry; listening: () => boolean },
  teardown: Teardown,
): Promise<{ port: number }> {
  const { server, port } = await startInternalServer({
    metrics,
    service: 'submission',
    config,
    checks: { smtp: listening },
    handlers: [],
    logger,
  });
  teardown.add(() => closeServer(server));
  return { port };
}
