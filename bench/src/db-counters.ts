import { connectDb, type Connection } from '@postbus/db';

/** Commands the MongoDB-wire server has run, by name: FerretDB's serverStatus `metrics.commands` (whole server). */
export type CommandCounts = Record<string, number>;

interface ServerStatus {
  metrics?: { commands?: Record<string, { total?: number }> };
  opcounters?: Record<string, number>;
}

/**
 * Reads the server's command counters, to tell how many database round trips a phase of a benchmark cost. They
 * count every client of the server: figures are only meaningful when nothing else uses it meanwhile.
 */
export class DbCounters {
  private constructor(private readonly connection: Connection) {}

  static async open(url: string): Promise<DbCounters> {
    return new DbCounters(await connectDb({ url, dbName: 'admin', connectTimeoutMs: 10_000 }));
  }

  /** Null when the server does not report counters (MongoDB reports opcounters instead, used then). */
  async read(): Promise<CommandCounts | null> {
    try {
      const status = (await this.connection.db!.admin().command({ serverStatus: 1 })) as ServerStatus;
      const commands = status.metrics?.commands;
      if (commands && Object.keys(commands).length > 0)
        return Object.fromEntries(Object.entries(commands).map(([name, { total }]) => [name, Number(total ?? 0)]));
      return status.opcounters ? { ...status.opcounters } : null;
    } catch {
      return null;
    }
  }

  /** Starts counting; the returned function answers the commands run since, per `per` (e.g. per message). */
  async measure(): Promise<(per: number) => Promise<CommandCounts | null>> {
    const before = await this.read();
    return async (per: number) => {
      const after = await this.read();
      if (!before || !after || per <= 0) return null;
      const counts: CommandCounts = {};
      for (const [name, total] of Object.entries(after)) {
        const ran = total - (before[name] ?? 0);
        if (ran > 0) counts[name] = Math.round((ran / per) * 100) / 100;
      }
      return counts;
    };
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
