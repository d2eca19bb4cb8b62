import { createLogger } from '@postbus/logger';
import { defaultKafkaBrokers } from '@postbus/testing';
import { Bus, type BusOptions } from '@postbus/bus';

/** The local broker(s) the bus tests talk to. */
export const brokers = defaultKafkaBrokers().split(',');
export const logger = createLogger({ service: 'bus-test', level: 'error' });

/** A bus of the bus tests in the namespace: one partition and one replica per topic; `options` add to it or override it. */
export const testBus = (namespace: string, options: Partial<BusOptions> = {}): Bus =>
  new Bus({ brokers, service: 'postbus/bus-test', logger, namespace, partitions: 1, replicationFactor: 1, ...options });
