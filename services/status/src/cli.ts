#!/usr/bin/env node
import { parseArgs } from 'node:util';

const USAGE = `Usage (postbus status … or postbus-status …):
  postbus status show [--json]
      Every component with its status and why (infrastructure included).
  postbus status incident open --name NAME --body TEXT [--impact none|minor|major|critical]
                               [--status investigating|identified|monitoring|resolved] [--components ID,ID] [--json]
  postbus status incident update INCIDENT_ID --status STATUS --body TEXT [--impact IMPACT] [--json]
  postbus status incident list [--json]
  postbus status maintenance schedule --name NAME --from ISO_TIME --until ISO_TIME --components ID,ID [--body TEXT] [--json]
  postbus status maintenance update MAINTENANCE_ID --body TEXT [--status in_progress|verifying|completed] [--json]
  postbus status maintenance list [--json]
  postbus status subscribers list [--json]
      Every subscriber: id, kind, confirmed or not, created (the address masked; never a secret).
  postbus status subscribers remove SUBSCRIBER_ID

Calls the status service's operator API at STATUS_URL (default http://127.0.0.1:8090)
with the token in STATUS_OPERATOR_TOKEN.`;

class UsageError extends Error {}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function operatorCall(method: string, path: string, json?: unknown): Promise<Answer> {
  const base = (process.env['STATUS_URL'] || 'http://127.0.0.1:8090').replace(/\/+$/, '');
  const token = process.env['STATUS_OPERATOR_TOKEN'] ?? '';
  if (!token) throw new UsageError('STATUS_OPERATOR_TOKEN is not set');
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(json !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (res.status >= 400) {
    const problems =
      (body['errors'] as { pointer: string; message: string }[] | undefined)?.map((e) => `  ${e.pointer}: ${e.message}`) ?? [];
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    throw new Error([`${res.status} ${text(body['title'])}: ${text(body['detail'])}`, ...problems].join('\n'));
  }
  return { status: res.status, body };
}

const list = (value: string | undefined): string[] | undefined =>
  value
    ?.split(',')
    .map((v) => v.trim())
    .filter(Boolean);

function required(value: string | undefined, option: string): string {
  if (!value?.trim()) throw new UsageError(`${option} is required`);
  return value;
}

function instant(value: string | undefined, option: string): string {
  const date = new Date(required(value, option));
  if (Number.isNaN(date.getTime())) throw new UsageError(`${option} must be an ISO 8601 time, e.g. 2030-01-01T10:00:00Z`);
  return date.toISOString();
}

interface Row {
  id: string;
  name?: string;
  status: string;
  detail?: string;
  impact?: string;
  scheduledFor?: string;
  scheduledUntil?: string;
}

interface SubscriberRow {
  id: string;
  kind: string;
  confirmed: boolean;
  created_at: string;
  target: string;
}

/** Operator commands against the status service's operator API. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      body: { type: 'string' },
      status: { type: 'string' },
      impact: { type: 'string' },
      components: { type: 'string' },
      from: { type: 'string' },
      until: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [noun, verb, id] = positionals;
  const command = [noun, verb].filter(Boolean).join(' ');
  const known = [
    'show',
    'incident open',
    'incident update',
    'incident list',
    'maintenance schedule',
    'maintenance update',
    'maintenance list',
    'subscribers list',
    'subscribers remove',
  ];
  if (values.help || !known.includes(command)) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const print = (answer: Answer, line: (body: Record<string, unknown>) => string) =>
    console.log(values.json ? JSON.stringify(answer.body, null, 2) : line(answer.body));
  const rows = (body: Record<string, unknown>, key: string) => body[key] as Row[];
  try {
    switch (command) {
      case 'show':
        print(await operatorCall('GET', '/api/operator/status'), (b) =>
          rows(b, 'components')
            .map((c) => `${c.id.padEnd(34)} ${c.status.padEnd(21)} ${c.detail ?? ''}`)
            .join('\n'),
        );
        break;
      case 'incident open':
        print(
          await operatorCall('POST', '/api/operator/incidents', {
            name: required(values.name, '--name'),
            body: required(values.body, '--body'),
            ...(values.status ? { status: values.status } : {}),
            ...(values.impact ? { impact: values.impact } : {}),
            ...(values.components ? { component_ids: list(values.components) } : {}),
          }),
          (b) => `opened incident ${String(b['id'])} (${String(b['status'])}, impact ${String(b['impact'])})`,
        );
        break;
      case 'incident update':
        print(
          await operatorCall('POST', `/api/operator/incidents/${encodeURIComponent(required(id, 'INCIDENT_ID'))}/updates`, {
            status: required(values.status, '--status'),
            body: required(values.body, '--body'),
            ...(values.impact ? { impact: values.impact } : {}),
          }),
          (b) => `incident ${String(b['id'])} is ${String(b['status'])}`,
        );
        break;
      case 'incident list':
        print(await operatorCall('GET', '/api/operator/incidents'), (b) =>
          rows(b, 'data')
            .map((i) => `${i.id}  ${i.status.padEnd(13)} ${String(i.impact).padEnd(8)} ${i.name ?? ''}`)
            .join('\n'),
        );
        break;
      case 'maintenance schedule':
        print(
          await operatorCall('POST', '/api/operator/maintenances', {
            name: required(values.name, '--name'),
            scheduled_for: instant(values.from, '--from'),
            scheduled_until: instant(values.until, '--until'),
            component_ids: list(required(values.components, '--components')),
            ...(values.body ? { body: values.body } : {}),
          }),
          (b) => `scheduled maintenance ${String(b['id'])} (${String(b['status'])})`,
        );
        break;
      case 'maintenance update':
        print(
          await operatorCall('POST', `/api/operator/maintenances/${encodeURIComponent(required(id, 'MAINTENANCE_ID'))}/updates`, {
            body: required(values.body, '--body'),
            ...(values.status ? { status: values.status } : {}),
          }),
          (b) => `maintenance ${String(b['id'])} is ${String(b['status'])}`,
        );
        break;
      case 'maintenance list':
        print(await operatorCall('GET', '/api/operator/maintenances'), (b) =>
          rows(b, 'data')
            .map((m) => `${m.id}  ${m.status.padEnd(12)} ${String(m.scheduledFor)} → ${String(m.scheduledUntil)}  ${m.name ?? ''}`)
            .join('\n'),
        );
        break;
      case 'subscribers list':
        print(await operatorCall('GET', '/api/operator/subscribers'), (b) =>
          (b['data'] as SubscriberRow[])
            .map(
              (s) =>
                `${s.id}  ${s.kind.padEnd(7)} ${(s.confirmed ? 'confirmed' : 'unconfirmed').padEnd(11)} created ${s.created_at}  ${s.target}`,
            )
            .join('\n'),
        );
        break;
      case 'subscribers remove': {
        const subscriberId = required(id, 'SUBSCRIBER_ID');
        print(
          await operatorCall('DELETE', `/api/operator/subscribers/${encodeURIComponent(subscriberId)}`),
          () => `removed subscriber ${subscriberId}`,
        );
        break;
      }
    }
    return 0;
  } catch (error) {
    console.error(
      error instanceof UsageError
        ? `${error.message}\n\n${USAGE}`
        : `postbus status: ${error instanceof Error ? error.message : String(error)}`,
    );
    return error instanceof UsageError ? 2 : 1;
  }
}
