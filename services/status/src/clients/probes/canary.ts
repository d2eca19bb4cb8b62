import type { CanarySettings } from '../../config';
import type { CanarySample } from '../../domain/model';
import type { Probe, ProbeOutcome } from '../../domain/ports';
import { reason, verdict } from './probe';

const POLL_MS = 500;

/**
 * A real trigger through the public API, timed from acceptance to `sent`: slower than the
 * degraded bound is degraded, no `sent` within the outage bound (or a refused trigger) is an outage.
 */
export function canaryProbe(options: {
  componentId: string;
  gatewayUrl: string;
  settings: CanarySettings;
  intervalMs: number;
  timeoutMs: number;
  degradedMs: number;
  outageMs: number;
  onSample: (sample: CanarySample) => void;
}): Probe {
  const { settings } = options;
  const auth = `Basic ${Buffer.from(`${settings.clientId}:${settings.apiKey}`).toString('base64')}`;
  const project = `${options.gatewayUrl}/v1/projects/${encodeURIComponent(settings.projectId)}`;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  return {
    name: 'canary',
    componentIds: [options.componentId],
    intervalMs: options.intervalMs,
    async run(): Promise<ProbeOutcome[]> {
      const startedAt = new Date();
      let messageId: string;
      try {
        const res = await fetch(`${project}/emails/${encodeURIComponent(settings.emailKey)}/send`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify({ user: { email: settings.to, name: 'Postbus status canary' }, data: { canary: true } }),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const body = (await res.json().catch(() => ({}))) as { message_id?: string };
        if (res.status !== 200 || !body.message_id)
          return [verdict(options.componentId, 'major_outage', `the canary's trigger was refused (${res.status})`)];
        messageId = body.message_id;
      } catch (error) {
        return [verdict(options.componentId, 'major_outage', `the canary could not trigger: ${reason(error)}`)];
      }
      const accepted = Date.now();
      while (Date.now() - accepted < options.outageMs) {
        await sleep(POLL_MS);
        try {
          const res = await fetch(`${project}/messages/${encodeURIComponent(messageId)}`, {
            headers: { authorization: auth },
            signal: AbortSignal.timeout(options.timeoutMs),
          });
          if (res.status !== 200) continue; // not readable yet (the mailer stores it first)
          const { status } = (await res.json()) as { status?: string };
          if (status === 'sent') {
            const delayMs = Date.now() - accepted;
            options.onSample({ at: startedAt, delayMs });
            const slow = delayMs > options.degradedMs;
            return [
              verdict(
                options.componentId,
                slow ? 'degraded_performance' : 'operational',
                `accepted → sent in ${(delayMs / 1000).toFixed(1)} s`,
                delayMs,
              ),
            ];
          }
          if (status === 'bounced' || status === 'failed' || status === 'suppressed')
            return [verdict(options.componentId, 'major_outage', `the canary's email ended ${status}`)];
        } catch {
          // The read API is briefly unreachable: keep polling until the bound.
        }
      }
      options.onSample({ at: startedAt, delayMs: null });
      return [verdict(options.componentId, 'major_outage', `no \`sent\` within ${Math.round(options.outageMs / 1000)} s of acceptance`)];
    },
  };
}
