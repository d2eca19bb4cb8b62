import type { StatusConfig } from '../config';
import { ComponentIds, componentDefinitions } from '../domain/components';
import { StatusEngine, type Clock } from '../domain/status-engine';

/** How long a probe may take: STATUS_PROBE_TIMEOUT_MS, but no longer than the interval between checks (1 s at least). */
export const probeTimeoutMs = (config: StatusConfig): number =>
  Math.min(config.STATUS_PROBE_TIMEOUT_MS, Math.max(config.STATUS_CHECK_INTERVAL_MS, 1000));

/** The status engine over Postbus's components, its page at `publicUrl`; its state is loaded by `openStores`. */
export function createEngine(config: StatusConfig, publicUrl: string, clock: Clock | undefined): StatusEngine {
  const timeout = probeTimeoutMs(config);
  const staleAfter = (componentId: string) =>
    componentId === ComponentIds.sendDelay
      ? 2 * config.STATUS_CANARY_INTERVAL_MS + config.STATUS_SEND_DELAY_OUTAGE + timeout
      : 3 * config.STATUS_CHECK_INTERVAL_MS + timeout;
  return new StatusEngine({
    page: { id: 'postbus', name: config.STATUS_PAGE_NAME, url: publicUrl },
    definitions: componentDefinitions(),
    damping: { failuresToChange: config.STATUS_FAILURES_TO_CHANGE, successesToRecover: config.STATUS_SUCCESSES_TO_RECOVER },
    staleAfterMs: staleAfter,
    maintenanceVerifyMs: config.STATUS_MAINTENANCE_VERIFY_MS,
    ...(clock ? { clock } : {}),
  });
}
