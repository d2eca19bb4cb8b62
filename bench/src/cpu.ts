import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '@postbus/testing';

/** CPU time read from /proc (Linux); other systems get no CPU figures. */
interface Sample {
  /** Jiffies of all CPUs: everything, and the part not idle. */
  all: number;
  busy: number;
  byName: Map<string, number>;
}

/** Cores in use on average during a run (1 = one core fully busy), overall and by process. */
export interface CpuUsage {
  cores: number;
  busy: number;
  byProcess: Record<string, number>;
  /** Everything else on the machine: other people's processes, the kernel. */
  other: number;
  /** CPU time each process used during the run, in milliseconds (user + system). */
  cpuMs: Record<string, number>;
  /** How long the run lasted. */
  wallMs: number;
}

/** Linux counts process CPU in clock ticks of 1/USER_HZ s, and USER_HZ is 100 on every Linux ABI Node runs on. */
const MS_PER_JIFFY = 10;

function systemJiffies(): { all: number; busy: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const all = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  return { all, busy: all - (fields[3] ?? 0) - (fields[4] ?? 0) };
}

function processJiffies(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: the fields after it start at utime (14) and stime (15).
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]);
  } catch {
    return undefined;
  }
}

/** The local Kafka and FerretDB that deploy/local/infra.sh started, when they run here. */
export function infraPids(): Record<string, number> {
  const runDir = join(process.env['POSTBUS_DATA_DIR'] ?? join(repoRoot, '.data'), 'run');
  const pids: Record<string, number> = {};
  for (const name of ['kafka', 'ferretdb']) {
    try {
      const pid = Number(readFileSync(join(runDir, `${name}.pid`), 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0) pids[name] = pid;
    } catch {
      // not started by infra.sh
    }
  }
  return pids;
}

/** Starts measuring the CPU the named processes use; the returned function ends the measurement. */
export function measureCpu(pids: Record<string, number | undefined>): () => CpuUsage | null {
  const take = (): Sample | null => {
    try {
      const byName = new Map<string, number>();
      for (const [name, pid] of Object.entries(pids)) {
        const jiffies = pid === undefined ? undefined : processJiffies(pid);
        if (jiffies !== undefined) byName.set(name, jiffies);
      }
      return { ...systemJiffies(), byName };
    } catch {
      return null;
    }
  };
  const before = take();
  const startedAt = performance.now();
  return () => {
    const after = take();
    const wallMs = Math.round(performance.now() - startedAt);
    if (!before || !after || after.all <= before.all) return null;
    const cores = cpus().length;
    const share = (jiffies: number) => Math.round(((cores * jiffies) / (after.all - before.all)) * 100) / 100;
    const byProcess: Record<string, number> = {};
    const cpuMs: Record<string, number> = {};
    for (const [name, end] of after.byName) {
      const start = before.byName.get(name);
      if (start === undefined) continue;
      byProcess[name] = share(end - start);
      cpuMs[name] = (end - start) * MS_PER_JIFFY;
    }
    const busy = share(after.busy - before.busy);
    const mine = Object.values(byProcess).reduce((a, b) => a + b, 0);
    return { cores, busy, byProcess, other: Math.max(0, Math.round((busy - mine) * 100) / 100), cpuMs, wallMs };
  };
}
