import { randomUUID } from 'node:crypto';
import type { IHeaders } from 'kafkajs';

/** A CloudEvents 1.0 event as it travels in Kafka binary mode: attributes in ce_* headers, data as the JSON value. */
export interface Envelope<D = unknown> {
  id: string;
  type: string;
  source: string;
  time: string;
  requestId?: string;
  data: D;
}

export const SPEC_VERSION = '1.0';

export function newEnvelope<D>(type: string, source: string, data: D, requestId?: string, id: string = randomUUID()): Envelope<D> {
  return { id, type, source, time: new Date().toISOString(), ...(requestId ? { requestId } : {}), data };
}

export function toKafkaHeaders(e: Envelope): Record<string, string> {
  return {
    ce_specversion: SPEC_VERSION,
    ce_id: e.id,
    ce_type: e.type,
    ce_source: e.source,
    ce_time: e.time,
    'content-type': 'application/json',
    ...(e.requestId ? { request_id: e.requestId } : {}),
  };
}

const header = (headers: IHeaders | undefined, name: string): string | undefined => {
  const value = headers?.[name];
  if (value === undefined) return undefined;
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
};

/** Reads an envelope back; throws a PoisonMessageError-worthy Error when it is not a CloudEvent with JSON data. */
export function fromKafkaMessage(headers: IHeaders | undefined, value: Buffer | null): Envelope {
  const id = header(headers, 'ce_id');
  const type = header(headers, 'ce_type');
  const source = header(headers, 'ce_source');
  const time = header(headers, 'ce_time');
  if (header(headers, 'ce_specversion') !== SPEC_VERSION || !id || !type || !source || !time) {
    throw new Error('not a CloudEvents 1.0 binary-mode message');
  }
  if (!value) throw new Error('message has no data');
  const requestId = header(headers, 'request_id');
  return { id, type, source, time, ...(requestId ? { requestId } : {}), data: JSON.parse(value.toString('utf8')) as unknown };
}
