import { randomBytes } from 'node:crypto';
import { ConsumerGroups } from '@postbus/contracts';
import { ReturnPathTokens } from '@postbus/crypto';
import type { Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { InboundConfig } from '../config';
import { ReportIntake } from '../domain/report-intake';
import { catalogHandlers, receivedMailHandlers } from '../handlers';
import { ReportParser } from '../parse/report-parser';
import type { Infrastructure } from './infrastructure';
import type { Stores } from './stores';

/** What the consumers and the MX share. */
export interface Domain {
  /** Verifies the return-path tokens the mailer signed: in the reports the consumer reads, and in the mail the MX takes. */
  tokens: ReturnPathTokens;
}

/** The consumer of the catalog (the return-path domains), and the one that reads the mail the MX stored for the feedback it carries. */
export async function startConsumers(
  config: InboundConfig,
  logger: Logger,
  { bus }: Infrastructure,
  { domains, received }: Stores,
  teardown: Teardown,
): Promise<Domain> {
  if (!config.TRACKING_SECRET) logger.warn('TRACKING_SECRET is not set: no return-path token the mailer signed will verify here');
  const tokens = new ReturnPathTokens(config.TRACKING_SECRET || randomBytes(32).toString('hex'));
  const parser = new ReportParser({ threads: config.INBOUND_PARSE_THREADS, budgetMs: config.INBOUND_PARSE_BUDGET_MS, logger });
  teardown.add(() => parser.close());
  // The bus was connected with the infrastructure but is closed from here, so that its consumers
  // stop before the parse threads they read mail on, and the database after both.
  teardown.add(() => bus.close());
  await Promise.all([
    bus.consume({ groupId: ConsumerGroups.inboundCatalog, handlers: catalogHandlers(domains) }),
    bus.consume({
      groupId: ConsumerGroups.inbound,
      handlers: receivedMailHandlers(new ReportIntake({ tokens, publisher: bus.publisher, received, logger, readReport: parser.read })),
    }),
  ]);
  return { tokens };
}
