import { SEVERITY } from '../../domain/components';
import type { CheckResult, ComponentStatus } from '../../domain/model';
import type { Probe } from '../../domain/ports';

/** A component's verdict, stamped now (the monitor stamps it again with the engine's clock). */
export const verdict = (componentId: string, status: ComponentStatus, detail: string, latencyMs?: number): CheckResult => ({
  componentId,
  at: new Date(),
  status,
  detail,
  ...(latencyMs !== undefined ? { latencyMs: Math.round(latencyMs) } : {}),
});

/** A failure in one line without internals: the error's code or its first line, never a stack or a URL with credentials. */
export function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  if (cause?.code) return cause.code;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  if ((error as Error | undefined)?.name === 'TimeoutError') return 'timed out';
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 160);
}

/**
 * One component judged by several probes at once (a service's /readyz and a session on its SMTP
 * port): the worst verdict is the component's, so the engine's damping sees one series rather than
 * two taking turns; when every probe finds it good, the detail names what each saw.
 */
export function worstOfProbes(name: string, componentId: string, probes: Probe[]): Probe {
  return {
    name,
    componentIds: [componentId],
    intervalMs: Math.min(...probes.map((p) => p.intervalMs)),
    async run() {
      const outcomes = (await Promise.all(probes.map((p) => p.run()))).flat().filter((o) => o.componentId === componentId);
      const checks = outcomes.filter((o): o is CheckResult => !('unknown' in o));
      const worst = checks.reduce<CheckResult | undefined>(
        (found, check) => (!found || SEVERITY[check.status] > SEVERITY[found.status] ? check : found),
        undefined,
      );
      if (worst && worst.status !== 'operational') return [worst];
      const unknown = outcomes.find((o) => 'unknown' in o);
      if (unknown) return [unknown];
      if (!worst) return [];
      const latencies = checks.flatMap((c) => (c.latencyMs !== undefined ? [c.latencyMs] : []));
      return [
        verdict(
          componentId,
          'operational',
          checks.map((c) => c.detail).join('; '),
          latencies.length > 0 ? Math.max(...latencies) : undefined,
        ),
      ];
    },
    async close() {
      await Promise.all(probes.map((p) => (p.close ? p.close() : Promise.resolve())));
    },
  };
}
