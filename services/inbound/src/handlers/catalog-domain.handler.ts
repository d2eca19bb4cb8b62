import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { ReturnPathDomains } from '../model/return-path-domain.repository';

/** A sender domain created or changed: its return-path domain takes mail from now on. */
export const catalogDomainHandler = (domains: ReturnPathDomains) =>
  defineHandler({ topic: Topics.Catalog, type: 'catalog.domain', handle: (data) => domains.apply(data) });
