import type { Connection } from 'mongoose';
import type { Probe, ProbeOutcome } from '../../domain/ports';
import { reason, verdict } from './probe';

/** A ping through each service's database (one component each); no connection yet is a failed ping. */
export function mongoProbe(options: {
  databases: { componentId: string; dbName: string }[];
  /** The live connection, 'connecting' while the first attempt runs, undefined when unreachable. */
  connection: () => Connection | 'connecting' | undefined;
  intervalMs: number;
  timeoutMs: number;
}): Probe {
  return {
    name: 'mongodb',
    componentIds: options.databases.map((d) => d.componentId),
    intervalMs: options.intervalMs,
    async run(): Promise<ProbeOutcome[]> {
      const connection = options.connection();
      if (connection === 'connecting')
        return options.databases.map(({ componentId }) => ({ componentId, at: new Date(), unknown: 'connecting to MongoDB' }));
      return Promise.all(
        options.databases.map(async ({ componentId, dbName }) => {
          if (!connection) return verdict(componentId, 'major_outage', 'MongoDB unreachable: not connected');
          const started = performance.now();
          try {
            await Promise.race([
              connection.getClient().db(dbName).command({ ping: 1 }),
              new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), options.timeoutMs).unref()),
            ]);
            return verdict(componentId, 'operational', `${dbName} answers`, performance.now() - started);
          } catch (error) {
            return verdict(componentId, 'major_outage', `MongoDB unreachable: ${reason(error)}`);
          }
        }),
      );
    },
  };
}
