import { SecretBox } from '@postbus/crypto';
import type { Logger } from '@postbus/logger';
import type { DispatcherConfig } from '../config';
import { DeliveryStore } from '../model/delivery.repository';
import { EndpointStore } from '../model/endpoint.repository';
import { ProjectOwners } from '../model/project.repository';
import { RetentionRuns } from '../model/retention-run.repository';
import type { Infrastructure } from './infrastructure';

/** The dispatcher's repositories, initialised (they close with the database). */
export interface Stores {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  projects: ProjectOwners;
  runs: RetentionRuns;
}

export async function openStores(config: DispatcherConfig, logger: Logger, { db }: Infrastructure): Promise<Stores> {
  if (!config.SECRETS_KEY) logger.warn('SECRETS_KEY is not set: endpoint secrets are sealed with a random key that ends with this process');
  const endpoints = new EndpointStore(db, new SecretBox(config.SECRETS_KEY || undefined));
  const deliveries = new DeliveryStore(db);
  const projects = new ProjectOwners(db);
  const runs = new RetentionRuns(db);
  await Promise.all([endpoints.init(), deliveries.init(), projects.init(), runs.init()]);
  return { endpoints, deliveries, projects, runs };
}
