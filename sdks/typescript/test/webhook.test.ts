import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import {
  verifyWebhook,
  Webhook,
  WebhookVerificationError,
  type SuppressionReason,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookFailure,
} from '../src/index.js';

interface Vector {
  name: string;
  secrets: string[];
  headers: Record<string, string>;
  payload?: string;
  now: number;
  valid: boolean;
  reason?: WebhookFailure;
}

const vectors = JSON.parse(readFileSync(join(__dirname, '..', '..', 'webhook-vectors.json'), 'utf8')) as {
  tolerance_seconds: number;
  payload: string;
  cases: Vector[];
};

const failureOf = (verify: () => unknown): WebhookVerificationError | undefined => {
  try {
    verify();
    return undefined;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
};

describe('the shared webhook vectors (sdks/webhook-vectors.json)', () => {
  it('holds cases of each kind', () => {
    expect(vectors.cases.filter((c) => c.valid).length).toBeGreaterThan(0);
    expect(new Set(vectors.cases.filter((c) => !c.valid).map((c) => c.reason))).toEqual(new Set(['headers', 'timestamp', 'signature']));
  });

  it.each(vectors.cases.map((c) => [c.name, c] as const))('%s', (_name, vector) => {
    const signedPayload = vectors.payload;
    const received = vector.payload ?? signedPayload;
    const verify = () =>
      verifyWebhook(received, vector.headers, vector.secrets, {
        now: new Date(vector.now * 1000),
        toleranceSeconds: vectors.tolerance_seconds,
      });
    if (vector.valid) {
      expect(verify()).toEqual(JSON.parse(received));
    } else {
      expect(failureOf(verify)?.reason).toBe(vector.reason);
    }
  });
});

describe('Webhook', () => {
  const secret = `whsec_${Buffer.from('a test secret for the TypeScript SDK').toString('base64')}`;
  const body = JSON.stringify({ type: 'message.sent', timestamp: '2026-11-23T10:00:00.000Z', data: { message_id: 'msg_1' } });
  const now = new Date('2026-11-23T10:00:05Z');
  const signature = new ReferenceWebhook(secret).sign('msg_1', new Date('2026-11-23T10:00:00Z'), body);
  const plain = {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(Date.parse('2026-11-23T10:00:00Z') / 1000),
    'webhook-signature': signature,
  };

  it('accepts a fetch Headers object and a Buffer body', () => {
    const event = new Webhook(secret).verify(Buffer.from(body), new Headers(plain), { now });
    expect(event).toEqual({ type: 'message.sent', timestamp: '2026-11-23T10:00:00.000Z', data: { message_id: 'msg_1' } });
  });

  it("accepts Node's IncomingHttpHeaders, where a repeated header arrives as an array", () => {
    const headers = { ...plain, 'webhook-signature': ['v1,bm90IGl0', signature] };
    expect(() => new Webhook(secret).verify(body, headers, { now })).not.toThrow();
  });

  it('refuses a body that was re-serialised after parsing (not the raw bytes)', () => {
    const reserialised = JSON.stringify(JSON.parse(body), null, 2);
    expect(failureOf(() => new Webhook(secret).verify(reserialised, plain, { now }))?.reason).toBe('signature');
  });

  it('uses the clock when no now is given', () => {
    // Signed a day ago by the fixed clock above: stale by the real one.
    expect(failureOf(() => new Webhook(secret).verify(body, plain))?.reason).toBe('timestamp');
  });

  it('refuses a secret that is not whsec_ base64, naming it as the reason', () => {
    expect(failureOf(() => new Webhook('whsec_'))?.reason).toBe('secret');
    expect(failureOf(() => new Webhook([]))?.reason).toBe('secret');
  });

  it('types the complaint and suppression events: narrowing by type gives their data', () => {
    // Compiles only while the generated WebhookEvents holds these types (npm run typecheck).
    const added: WebhookEventType[] = ['message.complained', 'suppression.created', 'suppression.deleted'];
    const payload = JSON.stringify({
      type: 'suppression.created',
      timestamp: '2026-11-23T10:00:00.000Z',
      data: { project_id: 'p1', email: 'a@example.com', reason: 'complaint', created_at: '2026-11-23T10:00:00.000Z', message_id: 'msg_1' },
    });
    const signed = { ...plain, 'webhook-signature': new ReferenceWebhook(secret).sign('msg_1', new Date('2026-11-23T10:00:00Z'), payload) };

    const event: WebhookEvent = new Webhook(secret).verify(payload, signed, { now });

    expect(added).toHaveLength(3);
    if (event.type !== 'suppression.created') throw new Error(`unexpected ${event.type}`);
    const reason: SuppressionReason = event.data.reason;
    const complained: WebhookEvent<'message.complained'>['data']['event'] = 'complained';
    const lifted: WebhookEvent<'suppression.deleted'>['type'] = 'suppression.deleted';
    expect([reason, event.data.message_id, complained, lifted]).toEqual(['complaint', 'msg_1', 'complained', 'suppression.deleted']);
  });

  it('a verification error is a PostbusError with a message', () => {
    const error = failureOf(() => new Webhook(secret).verify(body, {}, { now }));
    expect(error?.reason).toBe('headers');
    expect(error?.message).toMatch(/webhook-id/);
  });
});
