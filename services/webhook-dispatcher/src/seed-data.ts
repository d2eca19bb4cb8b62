import { randomBytes } from 'node:crypto';
import { attemptIdOf, deliveryIdOf } from './domain/delivery-keys';
import type { AttemptDoc, DeliveryDoc } from './domain/records';
import { bodyOf, messageEvent } from './domain/webhook-payloads';
import type { DeliveryStore } from './model/delivery.repository';

const CHUNK = 1_000;
const EVENTS = ['queued', 'sent', 'opened', 'clicked', 'deferred'] as const;

export interface SeedOptions {
  endpointId: string;
  clientId: string;
  projectId: string;
  count: number;
  /** Creation times spread evenly from `since` to `until`, oldest first. */
  since: Date;
  until: Date;
  /** This many of the deliveries (spread among them) name this person. */
  person?: { email: string; userId: string | null; count: number };
  onProgress?: (done: SeedCounts) => void;
}

export interface SeedCounts {
  deliveries: number;
  attempts: number;
  personDeliveries: number;
}

/**
 * Writes `count` message-event deliveries of one endpoint with 1 to 3 attempts each through the
 * store's own write paths (add, recordAttempt: the documents and lists the handler and the worker
 * write), in chunks of 1,000: for the bench (seed.ts) and the tests at size.
 */
export async function seedDeliveries(
  deliveries: DeliveryStore,
  options: SeedOptions,
): Promise<{ seeded: SeedCounts; sampleDelivery: string | undefined; sampleFailed: string | undefined }> {
  const { endpointId, clientId, projectId, count, person } = options;
  const start = options.since.getTime();
  const step = count > 0 ? (options.until.getTime() - start) / count : 0;
  const run = randomBytes(4).toString('hex');
  const seeded: SeedCounts = { deliveries: 0, attempts: 0, personDeliveries: 0 };
  let sampleDelivery: string | undefined;
  let sampleFailed: string | undefined;
  for (let from = 0; from < count; from += CHUNK) {
    const docs: DeliveryDoc[] = [];
    const attempts: AttemptDoc[] = [];
    for (let i = from; i < Math.min(count, from + CHUNK); i++) {
      const createdAt = new Date(start + Math.floor(i * step));
      // Exactly person.count of the count deliveries, spread evenly.
      const isPerson = person !== undefined && (i * person.count) % count < person.count;
      const event = EVENTS[i % EVENTS.length]!;
      const messageId = `msg_${run}${i.toString(16).padStart(24, '0')}`;
      const eventId = `${messageId}:${EVENTS.indexOf(event) + 1}`;
      const id = deliveryIdOf(eventId, endpointId);
      docs.push({
        _id: id,
        endpointId,
        clientId,
        eventId,
        eventType: `message.${event}`,
        payload: bodyOf(
          messageEvent(`message.${event}`, {
            messageId,
            projectId,
            emailKey: 'welcome',
            // About a hundred deliveries per address, as a person gets several emails with several events each.
            email: isPerson ? person.email : `user${i % Math.max(1, Math.ceil(count / 100))}@bench.example`,
            userId: isPerson ? person.userId : null,
            event,
            sequence: EVENTS.indexOf(event) + 1,
            at: createdAt.toISOString(),
          }),
        ),
        createdAt,
      });
      // 1 to 3 attempts: most succeed at once, some after retries, one in fifty fails for good.
      const tries = 1 + (i % 7 === 0 ? 2 : i % 3 === 0 ? 1 : 0);
      const failed = i % 50 === 49;
      for (let n = 1; n <= tries; n++) {
        const last = n === tries;
        const ok = last && !failed;
        attempts.push({
          _id: attemptIdOf(id, n),
          deliveryId: id,
          endpointId,
          attempt: n,
          at: new Date(createdAt.getTime() + (n - 1) * 5_000 + 50),
          statusCode: ok ? 200 : 500,
          latencyMs: 20 + (i % 40),
          response: ok ? 'ok' : 'Internal Server Error',
          error: null,
          outcome: ok ? 'succeeded' : last ? 'failed' : 'retrying',
        });
      }
      if (failed) sampleFailed ??= id;
      sampleDelivery = id;
      if (isPerson) seeded.personDeliveries++;
    }
    await deliveries.add(docs);
    await Promise.all(attempts.map((a) => deliveries.recordAttempt(a)));
    seeded.deliveries += docs.length;
    seeded.attempts += attempts.length;
    options.onProgress?.(seeded);
  }
  return { seeded, sampleDelivery, sampleFailed };
}
