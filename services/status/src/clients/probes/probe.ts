import type { CheckResult, ComponentStatus } from '../../domain/model';

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
