import { kafkaConnection } from '@postbus/bus';
import { topicName } from '@postbus/contracts';
import type { Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { canarySettings, type StatusConfig } from '../config';
import { canaryProbe } from '../clients/probes/canary';
import { pageProbe, readyzProbe } from '../clients/probes/http-probes';
import { kafkaProbe } from '../clients/probes/kafka-probe';
import { mongoProbe } from '../clients/probes/mongo-probe';
import { worstOfProbes } from '../clients/probes/probe';
import { smtpProbe } from '../clients/probes/smtp-probe';
import { ComponentIds, SERVICE_DATABASES, type ServiceDatabase } from '../domain/components';
import { Monitor } from '../domain/monitor';
import type { Probe } from '../domain/ports';
import type { Clock, StatusEngine } from '../domain/status-engine';
import { probeTimeoutMs } from './engine';
import type { Stores } from './stores';

export interface Monitoring {
  /** Whether the canary measures the send delay (it is configured). */
  canary: boolean;
}

/**
 * The probes of every component (the services' readiness, SMTP submission's session, the relay,
 * the tracking edge and the admin panel, Kafka and the consumer lag, each service's database, the canary when configured),
 * run by the monitor, their verdicts handed to the engine.
 */
export function startMonitor(
  config: StatusConfig,
  logger: Logger,
  { engine, stores, clock }: { engine: StatusEngine; stores: Stores; clock: Clock | undefined },
  teardown: Teardown,
): Monitoring {
  const timeout = probeTimeoutMs(config);
  const canary = canarySettings(config);
  const dbNames: Record<ServiceDatabase, string> = {
    gateway: config.GATEWAY_DB_NAME,
    users: config.USERS_DB_NAME,
    mailer: config.MAILER_DB_NAME,
    webhooks: config.WEBHOOKS_DB_NAME,
    payments: config.PAYMENTS_DB_NAME,
    erasure: config.ERASURE_DB_NAME,
    status: config.STATUS_DB_NAME,
  };
  const every = { intervalMs: config.STATUS_CHECK_INTERVAL_MS, timeoutMs: timeout };
  const probes: Probe[] = [
    readyzProbe({ componentId: ComponentIds.gateway, service: 'gateway', url: config.GATEWAY_URL, ...every }),
    readyzProbe({ componentId: ComponentIds.users, service: 'users', url: config.USERS_URL, ...every }),
    readyzProbe({ componentId: ComponentIds.payments, service: 'payments', url: config.PAYMENTS_URL, ...every }),
    readyzProbe({ componentId: ComponentIds.erasure, service: 'erasure', url: config.ERASURE_URL, ...every }),
    readyzProbe({ componentId: ComponentIds.mailer, service: 'mailer', url: config.MAILER_URL, ...every }),
    readyzProbe({ componentId: ComponentIds.dispatcher, service: 'webhook dispatcher', url: config.WEBHOOKS_URL, ...every }),
    // SMTP submission: ready (both ports listen) and taking a session as an app's mailer opens one.
    worstOfProbes('submission', ComponentIds.submission, [
      readyzProbe({ componentId: ComponentIds.submission, service: 'submission', url: config.SUBMISSION_URL, ...every }),
      smtpProbe({
        componentId: ComponentIds.submission,
        what: 'submission',
        smtpUrl: config.SUBMISSION_SMTP_URL,
        submission: true,
        ...every,
      }),
    ]),
    smtpProbe({ componentId: ComponentIds.relay, what: 'relay', smtpUrl: config.SMTP_URL, ...every }),
    pageProbe({
      componentId: ComponentIds.tracking,
      what: 'tracking edge',
      url: `${config.GATEWAY_URL}/t/o/status-probe`,
      expectOk: false,
      ...every,
    }),
    pageProbe({ componentId: ComponentIds.admin, what: 'admin panel', url: `${config.GATEWAY_URL}/admin/`, expectOk: true, ...every }),
    kafkaProbe({
      kafkaComponentId: ComponentIds.kafka,
      lagComponentId: ComponentIds.consumerLag,
      connection: kafkaConnection(config),
      groups: config.STATUS_CONSUMER_GROUPS.split(',')
        .map((g) => g.trim())
        .filter(Boolean)
        .map((g) => topicName(g, config.KAFKA_NAMESPACE)),
      lagDegraded: config.STATUS_CONSUMER_LAG_DEGRADED,
      stuckChecks: config.STATUS_CONSUMER_STUCK_CHECKS,
      ...every,
    }),
    mongoProbe({
      databases: SERVICE_DATABASES.map((db) => ({ componentId: ComponentIds.database(db), dbName: dbNames[db] })),
      connection: () => stores.persistence.databaseLink(),
      ...every,
    }),
  ];
  if (canary) {
    probes.push(
      canaryProbe({
        componentId: ComponentIds.sendDelay,
        gatewayUrl: config.GATEWAY_URL,
        settings: canary,
        intervalMs: config.STATUS_CANARY_INTERVAL_MS,
        timeoutMs: timeout,
        degradedMs: config.STATUS_SEND_DELAY_DEGRADED,
        outageMs: config.STATUS_SEND_DELAY_OUTAGE,
        onSample: (sample) => engine.recordCanary(sample),
      }),
    );
  } else {
    engine.markNotMonitored(
      ComponentIds.sendDelay,
      'the canary is not configured (STATUS_CANARY_CLIENT_ID, _API_KEY, _PROJECT_ID, _EMAIL_KEY, _TO)',
    );
  }
  // The canary polls for up to its outage bound; other probes are cut off after their timeout and a margin.
  const monitor = new Monitor(engine, probes, logger, Math.max(timeout * 3, config.STATUS_SEND_DELAY_OUTAGE + 2 * timeout), clock);
  monitor.start();
  teardown.add(() => monitor.stop());
  return { canary: canary !== undefined };
}
