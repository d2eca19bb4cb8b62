import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { ReturnPathDomains } from '../model/return-path-domain.repository';

/** A domain deleted: its return-path domain is refused from now on (other kinds of entity are not this service's). */
export const catalogDeletedHandler = (domains: ReturnPathDomains) =>
  defineHandler({
    topic: Topics.Catalog,
    type: 'catalog.deleted',
    handle: async (data) => {
      if (data.kind === 'domain') await domains.remove(data.id, data.revision);
    },
  });
