/** The send path's figures of a run of triggers (a closed loop, as the mailer benchmark takes them, or paced): accepted, then at the sink. */
import type { SinkClient } from '@postbus/testing';
import { measureCpu, type CpuUsage } from './cpu';
import { SENDER_DOMAIN } from './mail-template';
import { latencyOf, perSecond, type Latency } from './stats';
import { matchDeliveries, readSink, waitForSinkCount, type Delivery, type Trigger, type TriggerClient } from './triggers';

export interface SendRun {
  mails: number;
  /** Triggers in flight (a closed loop), or null for a paced run. */
  inFlight: number | null;
  /** Triggers a second asked (a paced run), or null for a closed loop. */
  targetRate: number | null;
  /** Triggers answered 200 a second, first sent to last answered. */
  acceptRate: number;
  acceptSpanMs: number;
  /** Distinct accepted messages at the sink a second, first trigger sent to the last at the sink. */
  deliveryRate: number;
  spanMs: number;
  httpLatencyMs: Latency;
  sinkLatencyMs: Latency;
  delivery: Omit<Delivery, 'latencies' | 'perSecond'>;
  arrivalsPerSecond: number[];
  cpu: CpuUsage | null;
}

/** How the triggers go: `inFlight` at a time, each as soon as one is answered, or `rate` a second whatever the answers. */
export type SendLoad = { count: number; inFlight: number } | { rate: number; durationSec: number };

/**
 * Triggers tagged `tag` as `load` says, until the accepted ones are at the sink (or it stalled for 30 s). The sink
 * must hold nothing else of interest: it is read whole. Answers the figures and the triggers.
 */
export async function sendRun(
  client: TriggerClient,
  sink: SinkClient,
  {
    tag,
    load,
    watch,
    signal,
    progress,
  }: {
    tag: string;
    load: SendLoad;
    watch: Record<string, number | undefined>;
    signal: AbortSignal;
    progress: (message: string) => void;
  },
): Promise<{ run: SendRun; triggers: Trigger[] }> {
  const cpu = measureCpu(watch);
  const fired =
    'inFlight' in load
      ? await client.closedLoop(tag, load.count, load.inFlight, signal)
      : await client.paced(tag, load.rate, load.durationSec, signal);
  const accepted = fired.filter((t) => t.messageId !== null).length;
  const acceptSpanMs = Math.max(...fired.map((t) => t.answeredAt)) - Math.min(...fired.map((t) => t.sentAt));
  await waitForSinkCount(sink, accepted, { signal, onProgress: (n) => progress(`  ${n}/${accepted} at the sink`) });
  const usage = cpu();
  const { latencies, perSecond: arrivalsPerSecond, ...delivery } = matchDeliveries(fired, await readSink(sink), SENDER_DOMAIN);
  return {
    run: {
      mails: fired.length,
      inFlight: 'inFlight' in load ? load.inFlight : null,
      targetRate: 'rate' in load ? load.rate : null,
      acceptRate: perSecond(accepted, acceptSpanMs),
      acceptSpanMs,
      deliveryRate: perSecond(delivery.matched, delivery.spanMs),
      spanMs: delivery.spanMs,
      httpLatencyMs: latencyOf(fired.map((t) => t.answeredAt - t.sentAt)),
      sinkLatencyMs: latencyOf(latencies),
      delivery,
      arrivalsPerSecond,
      cpu: usage,
    },
    triggers: fired,
  };
}
