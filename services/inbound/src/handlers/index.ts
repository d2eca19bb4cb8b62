import type { ReportIntake } from '../domain/report-intake';
import type { ReturnPathDomains } from '../model/return-path-domain.repository';
import { catalogDeletedHandler } from './catalog-deleted.handler';
import { catalogDomainHandler } from './catalog-domain.handler';
import { inboundReceivedHandler } from './inbound-received.handler';

/** The return-path domains' projection of the catalog (group `postbus-inbound-catalog`). */
export const catalogHandlers = (domains: ReturnPathDomains) => [catalogDomainHandler(domains), catalogDeletedHandler(domains)];

/** The mail the MX stored (group `postbus-inbound`). */
export const receivedMailHandlers = (intake: ReportIntake) => [inboundReceivedHandler(intake)];
