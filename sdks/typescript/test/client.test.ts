import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  attachmentFromFile,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PermissionError,
  Postbus,
  PostbusError,
  RateLimitError,
  SDK_VERSION,
  ServerError,
  TimeoutError,
  ValidationError,
  type PostbusOptions,
} from '../src/index.js';

interface SentRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

type Step = Response | Error | 'hang';

/** A fetch that answers from a script, one step per call, and records what it was sent. */
function scriptedFetch(steps: Step[]) {
  const sent: SentRequest[] = [];
  const fetch = (url: string, init: RequestInit): Promise<Response> => {
    sent.push({
      url,
      method: init.method ?? 'GET',
      headers: Object.fromEntries(Object.entries(init.headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v])),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    const step = steps.shift();
    if (step === undefined) throw new Error('the script has no answer left for this request');
    if (step === 'hang') {
      return new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(new DOMException('This operation was aborted', 'AbortError')));
      });
    }
    return step instanceof Error ? Promise.reject(step) : Promise.resolve(step);
  };
  return { fetch, sent };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const problem = (status: number, slug: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  new Response(
    JSON.stringify({ type: `/problems/${slug}`, title: `title ${slug}`, status, detail: `detail ${slug}`, request_id: 'req_1', ...extra }),
    {
      status,
      headers: { 'content-type': 'application/problem+json', ...headers },
    },
  );

const accepted = { status: 'accepted', request_id: 'req_ok', message_id: 'msg_1' };
const alice = { email: 'alice@example.com' };

function client(steps: Step[], options: Partial<PostbusOptions> = {}) {
  const { fetch, sent } = scriptedFetch(steps);
  const sleeps: number[] = [];
  const postbus = new Postbus({
    clientId: 'cl_1',
    apiKey: 'key_secret',
    baseUrl: 'https://postbus.test/',
    fetch,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    ...options,
  });
  return { postbus, sent, sleeps };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('Postbus client', () => {
  it('when an email is sent, then it POSTs the user and data with Basic credentials, an Idempotency-Key and its User-Agent', async () => {
    const { postbus, sent } = client([json(200, accepted)]);

    const answer = await postbus.emails.send('proj 1', 'welcome/new', alice, { plan: 'pro' });

    expect(answer).toEqual(accepted);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe('POST');
    expect(sent[0]!.url).toBe('https://postbus.test/v1/projects/proj%201/emails/welcome%2Fnew/send');
    expect(sent[0]!.body).toEqual({ user: alice, data: { plan: 'pro' } });
    expect(sent[0]!.headers['authorization']).toBe(`Basic ${Buffer.from('cl_1:key_secret').toString('base64')}`);
    expect(sent[0]!.headers['content-type']).toBe('application/json');
    expect(sent[0]!.headers['user-agent']).toBe(`postbus-typescript/${SDK_VERSION}`);
    expect(sent[0]!.headers['idempotency-key']).toMatch(UUID);
  });

  it("when an email is sent with the message's options, then they go in the body and the call's options stay out of it", async () => {
    const { postbus, sent } = client([json(200, accepted)]);

    await postbus.emails.send('p1', 'receipt', alice, undefined, {
      reply_to: 'help@shop.example',
      cc: ['accounts@shop.example'],
      bcc: ['archive@shop.example'],
      headers: { 'X-Order-Id': '4711' },
      tags: ['receipt'],
      metadata: { order_id: 'ord_4711' },
      language: 'pt-BR',
      idempotencyKey: 'order-4711',
    });

    expect(sent[0]!.body).toEqual({
      user: alice,
      language: 'pt-BR',
      reply_to: 'help@shop.example',
      cc: ['accounts@shop.example'],
      bcc: ['archive@shop.example'],
      headers: { 'X-Order-Id': '4711' },
      tags: ['receipt'],
      metadata: { order_id: 'ord_4711' },
    });
    expect(sent[0]!.headers['idempotency-key']).toBe('order-4711');
  });

  it('when an email is sent with attachments as bytes, as base64 and from a file, then each goes in base64 with its name', async () => {
    const { postbus, sent } = client([json(200, accepted), json(200, accepted)]);
    const dir = await mkdtemp(join(tmpdir(), 'postbus-sdk-'));
    const pdf = Buffer.from('%PDF-1.4 invoice');
    await writeFile(join(dir, 'invoice.pdf'), pdf);
    const logo = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);

    await postbus.emails.send('p1', 'receipt', alice, undefined, {
      attachments: [
        await attachmentFromFile(join(dir, 'invoice.pdf')),
        { filename: 'logo.png', content: logo, content_id: 'logo' },
        { filename: 'note.txt', content: Buffer.from('hi').toString('base64'), content_type: 'text/plain' },
      ],
    });
    await postbus.emails.sendBatch('p1', [
      { email_key: 'welcome', user: alice, attachments: [{ filename: 'a.txt', content: Buffer.from('a') }] },
    ]);

    expect(sent[0]!.body).toEqual({
      user: alice,
      attachments: [
        { filename: 'invoice.pdf', content: pdf.toString('base64') },
        { filename: 'logo.png', content: Buffer.from(logo).toString('base64'), content_id: 'logo' },
        { filename: 'note.txt', content: 'aGk=', content_type: 'text/plain' },
      ],
    });
    expect(sent[1]!.body).toEqual({
      messages: [{ email_key: 'welcome', user: alice, attachments: [{ filename: 'a.txt', content: 'YQ==' }] }],
    });
  });

  it('when an email is scheduled with a Date, then send_at goes as RFC 3339, and a cancel posts to the message; a 409 is a ConflictError', async () => {
    const { postbus, sent } = client([
      json(200, { ...accepted, send_at: '2026-12-01T08:00:00.000Z' }),
      json(200, { id: 'msg_1', status: 'canceled' }),
      problem(409, 'message-not-cancelable'),
    ]);

    const answer = await postbus.emails.send('p1', 'welcome', alice, undefined, { send_at: new Date('2026-12-01T09:00:00+01:00') });
    expect(answer.send_at).toBe('2026-12-01T08:00:00.000Z');
    expect(sent[0]!.body).toEqual({ user: alice, send_at: '2026-12-01T08:00:00.000Z' });
    await expect(postbus.messages.cancel('p1', 'msg_1')).resolves.toMatchObject({ status: 'canceled' });
    expect([sent[1]!.method, sent[1]!.url]).toEqual(['POST', 'https://postbus.test/v1/projects/p1/messages/msg_1/cancel']);
    await expect(postbus.messages.cancel('p1', 'msg_1')).rejects.toBeInstanceOf(ConflictError);
  });

  it('when a batch is sent, then every message goes in one POST to the batch route', async () => {
    const answer = { request_id: 'req_1', data: [{ index: 0, status: 'accepted', message_id: 'msg_1' }] };
    const { postbus, sent } = client([json(200, answer)]);

    await expect(postbus.emails.sendBatch('p1', [{ email_key: 'welcome', user: alice, tags: ['a'] }])).resolves.toEqual(answer);

    expect(sent[0]!.url).toBe('https://postbus.test/v1/projects/p1/emails/batch');
    expect(sent[0]!.body).toEqual({ messages: [{ email_key: 'welcome', user: alice, tags: ['a'] }] });
  });

  it('when an email is sent with its own content, then it POSTs the message to /emails/send with attachments in base64, send_at as RFC 3339 and the call options out of the body', async () => {
    const { postbus, sent } = client([json(200, { ...accepted, send_at: '2026-12-01T08:00:00.000Z' })]);
    const dir = await mkdtemp(join(tmpdir(), 'postbus-sdk-'));
    const pdf = Buffer.from('%PDF-1.4 invoice');
    await writeFile(join(dir, 'invoice.pdf'), pdf);

    const answer = await postbus.emails.sendContent(
      'proj 1',
      {
        from: 'Acme Billing <billing@acme.example>',
        to: ['ada@example.com', 'bea@example.com'],
        subject: 'Your receipt',
        html: '<p>Thanks</p>',
        text: 'Thanks',
        user: { email: 'ada@example.com', name: 'Ada' },
        cc: ['accounts@acme.example'],
        bcc: ['archive@acme.example'],
        reply_to: 'help@acme.example',
        headers: { 'X-Order-Id': '4711' },
        tags: ['receipt'],
        metadata: { order_id: 'ord_4711' },
        attachments: [
          await attachmentFromFile(join(dir, 'invoice.pdf')),
          { filename: 'logo.png', content: new Uint8Array([0x89, 0x50]), content_id: 'logo' },
        ],
        send_at: new Date('2026-12-01T09:00:00+01:00'),
        track_opens: false,
        track_clicks: true,
      },
      { idempotencyKey: 'receipt-4711', maxRetries: 0 },
    );

    expect(answer.send_at).toBe('2026-12-01T08:00:00.000Z');
    expect(sent).toHaveLength(1);
    expect([sent[0]!.method, sent[0]!.url]).toEqual(['POST', 'https://postbus.test/v1/projects/proj%201/emails/send']);
    expect(sent[0]!.headers['idempotency-key']).toBe('receipt-4711');
    expect(sent[0]!.body).toEqual({
      from: 'Acme Billing <billing@acme.example>',
      to: ['ada@example.com', 'bea@example.com'],
      subject: 'Your receipt',
      html: '<p>Thanks</p>',
      text: 'Thanks',
      user: { email: 'ada@example.com', name: 'Ada' },
      cc: ['accounts@acme.example'],
      bcc: ['archive@acme.example'],
      reply_to: 'help@acme.example',
      headers: { 'X-Order-Id': '4711' },
      tags: ['receipt'],
      metadata: { order_id: 'ord_4711' },
      attachments: [
        { filename: 'invoice.pdf', content: pdf.toString('base64') },
        { filename: 'logo.png', content: Buffer.from([0x89, 0x50]).toString('base64'), content_id: 'logo' },
      ],
      send_at: '2026-12-01T08:00:00.000Z',
      track_opens: false,
      track_clicks: true,
    });
  });

  it('when a content email names only its recipient, subject and text, then the body holds just those, with a generated Idempotency-Key; a 422 is a ValidationError', async () => {
    const { postbus, sent } = client([
      json(200, accepted),
      problem(422, 'validation-failed', { errors: [{ pointer: '/from', message: 'not on mail.acme.example' }] }),
    ]);

    await expect(postbus.emails.sendContent('p1', { to: 'ada@example.com', subject: 'Hi', text: 'Hello' })).resolves.toEqual(accepted);
    const refused = await postbus.emails
      .sendContent('p1', { to: 'ada@example.com', subject: 'Hi', text: 'x', from: 'a@elsewhere.example' })
      .catch((e: unknown) => e);

    expect(sent[0]!.body).toEqual({ to: 'ada@example.com', subject: 'Hi', text: 'Hello' });
    expect(sent[0]!.headers['idempotency-key']).toMatch(UUID);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).errors).toEqual([{ pointer: '/from', message: 'not on mail.acme.example' }]);
    expect(sent).toHaveLength(2);
  });

  it('when a batch mixes template and content sends, then each goes as the API takes it: attachments in base64, a Date send_at as RFC 3339', async () => {
    const answer = {
      request_id: 'req_1',
      data: [
        { index: 0, status: 'accepted', message_id: 'msg_1' },
        { index: 1, status: 'accepted', message_id: 'msg_2', send_at: '2026-12-01T08:00:00.000Z' },
      ],
    };
    const { postbus, sent } = client([json(200, answer)]);

    await expect(
      postbus.emails.sendBatch('p1', [
        { email_key: 'welcome', user: alice, data: { code: 1 } },
        {
          to: 'bob@example.com',
          subject: 'Your receipt',
          html: '<p>Thanks</p>',
          attachments: [{ filename: 'a.txt', content: Buffer.from('a') }],
          send_at: new Date('2026-12-01T08:00:00Z'),
        },
      ]),
    ).resolves.toEqual(answer);

    expect(sent[0]!.body).toEqual({
      messages: [
        { email_key: 'welcome', user: alice, data: { code: 1 } },
        {
          to: 'bob@example.com',
          subject: 'Your receipt',
          html: '<p>Thanks</p>',
          attachments: [{ filename: 'a.txt', content: 'YQ==' }],
          send_at: '2026-12-01T08:00:00.000Z',
        },
      ],
    });
  });

  it('types a content send: subject is required, and a batch item is either a template send or a content send', () => {
    // Compile-time only (npm run typecheck): nothing is sent.
    const { postbus } = client([]);
    const never = () => {
      // @ts-expect-error a content send needs a subject
      void postbus.emails.sendContent('p1', { to: 'ada@example.com', text: 'x' });
      // @ts-expect-error a content item carries no email_key
      void postbus.emails.sendBatch('p1', [{ email_key: 'welcome', to: 'ada@example.com', subject: 'x', text: 'x' }]);
      // @ts-expect-error the call's options are not part of the message
      void postbus.emails.sendContent('p1', { to: 'ada@example.com', subject: 'x', text: 'x', idempotencyKey: 'k' });
    };
    expect(typeof never).toBe('function');
  });

  it('when the gateway answers 503 twice, then the call is tried three times with ONE Idempotency-Key and succeeds', async () => {
    const { postbus, sent, sleeps } = client([problem(503, 'unavailable'), problem(503, 'unavailable'), json(200, accepted)]);

    await expect(postbus.emails.send('p1', 'welcome', alice)).resolves.toEqual(accepted);

    expect(sent).toHaveLength(3);
    const keys = new Set(sent.map((request) => request.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(UUID);
    expect(sleeps).toHaveLength(2);
  });

  it('when two calls are made, then each gets its own Idempotency-Key', async () => {
    const { postbus, sent } = client([json(200, accepted), json(200, accepted)]);
    await postbus.emails.send('p1', 'welcome', alice);
    await postbus.emails.send('p1', 'welcome', alice);
    expect(sent[0]!.headers['idempotency-key']).not.toBe(sent[1]!.headers['idempotency-key']);
  });

  it('when the caller gives an Idempotency-Key, then it is sent on every try instead of a generated one', async () => {
    const { postbus, sent } = client([problem(500, 'internal'), json(200, accepted)]);
    await postbus.emails.send('p1', 'welcome', alice, undefined, { idempotencyKey: 'order-42-receipt' });
    expect(sent.map((request) => request.headers['idempotency-key'])).toEqual(['order-42-receipt', 'order-42-receipt']);
  });

  it('when the caller gives an Idempotency-Key the gateway would refuse, then nothing is sent', async () => {
    const { postbus, sent } = client([json(200, accepted)]);
    await expect(postbus.emails.send('p1', 'welcome', alice, undefined, { idempotencyKey: 'has space' })).rejects.toThrow(TypeError);
    expect(sent).toHaveLength(0);
  });

  it('when every try fails with 5xx, then it gives up after maxRetries retries with a ServerError', async () => {
    const { postbus, sent, sleeps } = client([problem(500, 'internal'), problem(502, 'bad-gateway'), problem(503, 'x'), problem(504, 'y')]);
    const error = await postbus.users.create('p1', alice).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).status).toBe(504);
    expect(sent).toHaveLength(4);
    // Full jitter: random (0.5 here) × 500 ms × 2^attempt.
    expect(sleeps).toEqual([250, 500, 1000]);
  });

  it('when maxRetries is 0, then a 503 is surfaced after one try', async () => {
    const { postbus, sent } = client([problem(503, 'unavailable')], { maxRetries: 0 });
    await expect(postbus.users.create('p1', alice)).rejects.toBeInstanceOf(ServerError);
    expect(sent).toHaveLength(1);
  });

  it('when a call sets maxRetries, then it overrides the client default', async () => {
    const { postbus, sent } = client([problem(503, 'a'), problem(503, 'b')]);
    await expect(postbus.users.create('p1', alice, { maxRetries: 1 })).rejects.toBeInstanceOf(ServerError);
    expect(sent).toHaveLength(2);
  });

  it.each([
    [400, ValidationError],
    [401, AuthenticationError],
    [403, PermissionError],
    [404, NotFoundError],
    [422, ValidationError],
  ])('when the gateway answers %i, then it is not retried', async (status, kind) => {
    const { postbus, sent } = client([problem(status, 'no'), json(200, accepted)]);
    await expect(postbus.emails.send('p1', 'welcome', alice)).rejects.toBeInstanceOf(kind);
    expect(sent).toHaveLength(1);
  });

  it('when the gateway answers 429 with Retry-After, then it waits that long and tries again', async () => {
    const { postbus, sent, sleeps } = client([problem(429, 'rate-limited', {}, { 'retry-after': '7' }), json(200, accepted)]);
    await expect(postbus.emails.send('p1', 'welcome', alice)).resolves.toEqual(accepted);
    expect(sleeps).toEqual([7000]);
    expect(sent).toHaveLength(2);
  });

  it('when Retry-After is an HTTP date, then it waits until then by the injected clock', async () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const { postbus, sleeps } = client(
      [problem(503, 'unavailable', {}, { 'retry-after': 'Mon, 23 Nov 2026 12:00:04 GMT' }), json(200, accepted)],
      { now: () => now },
    );
    await postbus.emails.send('p1', 'welcome', alice);
    expect(sleeps).toEqual([4000]);
  });

  it('when 429 persists, then a RateLimitError carries retryAfter in seconds', async () => {
    const limited = () => problem(429, 'rate-limited', {}, { 'retry-after': '2' });
    const { postbus, sent } = client([limited(), limited()], { maxRetries: 1 });
    const error = await postbus.emails.send('p1', 'welcome', alice).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(2);
    expect(sent).toHaveLength(2);
  });

  it('when the same key is still in flight (409), then it retries with the same key', async () => {
    const { postbus, sent } = client([problem(409, 'idempotency-in-flight'), json(200, accepted)]);
    await expect(postbus.emails.send('p1', 'welcome', alice)).resolves.toEqual(accepted);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.headers['idempotency-key']).toBe(sent[1]!.headers['idempotency-key']);
  });

  it('when a 409 is another conflict, then it is surfaced at once as a ConflictError', async () => {
    const { postbus, sent } = client([problem(409, 'idempotency-secret-not-replayed'), json(200, accepted)]);
    const error = await postbus.emails.send('p1', 'welcome', alice).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).type).toBe('/problems/idempotency-secret-not-replayed');
    expect(sent).toHaveLength(1);
  });

  it('when the connection fails every time, then it is retried and surfaced as a ConnectionError', async () => {
    const refused = () => new TypeError('fetch failed');
    const { postbus, sent } = client([refused(), refused(), refused()], { maxRetries: 2 });
    const error = await postbus.users.unsubscribe('p1', alice).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toBeInstanceOf(PostbusError);
    expect(sent).toHaveLength(3);
  });

  it('when the connection fails once, then the retry succeeds', async () => {
    const { postbus, sent } = client([new TypeError('fetch failed'), json(200, accepted)]);
    await expect(postbus.users.erase('p1', alice)).resolves.toEqual(accepted);
    expect(sent).toHaveLength(2);
  });

  it('when no answer comes within timeoutMs, then it is retried and surfaced as a TimeoutError', async () => {
    const { postbus, sent } = client(['hang', 'hang'], { timeoutMs: 5, maxRetries: 1 });
    const error = await postbus.users.create('p1', alice).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(sent).toHaveLength(2);
  });

  it('when the caller aborts, then the call ends with the abort and is not retried', async () => {
    const controller = new AbortController();
    const { postbus, sent } = client(['hang', json(200, accepted)]);
    const call = postbus.users.create('p1', alice, { signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(call).rejects.toThrow('caller gave up');
    expect(sent).toHaveLength(1);
  });

  describe('maps each answer to its error with the problem body', () => {
    const fieldErrors = [{ pointer: '/user/email', message: 'must match format "email"' }];
    it.each([
      [400, ValidationError],
      [401, AuthenticationError],
      [403, PermissionError],
      [404, NotFoundError],
      [409, ConflictError],
      [413, ValidationError],
      [415, ValidationError],
      [422, ValidationError],
      [429, RateLimitError],
      [500, ServerError],
      [503, ServerError],
    ])('%i', async (status, kind) => {
      const { postbus } = client([problem(status, 'some-slug', { errors: fieldErrors })], { maxRetries: 0 });
      const error = await postbus.emails.send('p1', 'welcome', alice).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(kind);
      expect(error).toMatchObject({
        status,
        type: '/problems/some-slug',
        title: 'title some-slug',
        detail: 'detail some-slug',
        requestId: 'req_1',
        errors: fieldErrors,
      });
    });

    it('an answer without a problem body still carries its status', async () => {
      const { postbus } = client([new Response('upstream down', { status: 502 })], { maxRetries: 0 });
      await expect(postbus.messages.get('p1', 'msg_1')).rejects.toMatchObject({ status: 502, errors: [], type: undefined });
    });
  });

  describe('routes', () => {
    it('updateByEmail PATCHes /users/by-email with the email and fields, without an Idempotency-Key', async () => {
      const { postbus, sent } = client([json(200, accepted)]);
      await postbus.users.updateByEmail('p1', 'a@example.com', { plan: 'pro', country: null });
      expect(sent[0]).toMatchObject({
        method: 'PATCH',
        url: 'https://postbus.test/v1/projects/p1/users/by-email',
        body: { email: 'a@example.com', fields: { plan: 'pro', country: null } },
      });
      expect(sent[0]!.headers['idempotency-key']).toBeUndefined();
    });

    it('updateByUserId PATCHes /users/{userId}, encoded', async () => {
      const { postbus, sent } = client([json(200, accepted)]);
      await postbus.users.updateByUserId('p1', 'u/1?x', { name: 'Al' });
      expect(sent[0]).toMatchObject({
        method: 'PATCH',
        url: 'https://postbus.test/v1/projects/p1/users/u%2F1%3Fx',
        body: { fields: { name: 'Al' } },
      });
    });

    it('unsubscribe and erase name the user by email or user_id', async () => {
      const { postbus, sent } = client([json(200, accepted), json(200, { ...accepted, erase_at: '2026-11-25T00:00:00Z' })]);
      await postbus.users.unsubscribe('p1', { user_id: 'u1' }, 'asked by phone');
      const erased = await postbus.users.erase('p1', { email: 'a@example.com' });
      expect(sent[0]).toMatchObject({
        method: 'POST',
        url: 'https://postbus.test/v1/projects/p1/users/unsubscribe',
        body: { user_id: 'u1', reason: 'asked by phone' },
      });
      expect(sent[1]).toMatchObject({
        method: 'POST',
        url: 'https://postbus.test/v1/projects/p1/users/erase',
        body: { email: 'a@example.com' },
      });
      expect(erased.erase_at).toBe('2026-11-25T00:00:00Z');
    });

    it('get reads by email with a query, by user_id with a path', async () => {
      const { postbus, sent } = client([json(200, { id: 'x' }), json(200, { id: 'y' })]);
      await postbus.users.get('p1', { email: 'a+b@example.com' });
      await postbus.users.get('p1', { user_id: 'u 1' });
      expect(sent.map((r) => [r.method, r.url])).toEqual([
        ['GET', 'https://postbus.test/v1/projects/p1/users?email=a%2Bb%40example.com'],
        ['GET', 'https://postbus.test/v1/projects/p1/users/u%201'],
      ]);
      expect(sent[0]!.headers['idempotency-key']).toBeUndefined();
    });

    it('payments and messages', async () => {
      const { postbus, sent } = client([json(200, accepted), json(200, { data: [] }), json(200, { data: [] }), json(200, { id: 'm' })]);
      await postbus.payments.record('p1', { email: 'a@example.com', payment_id: 'pay_1', amount: 1999, currency: 'EUR' });
      await postbus.payments.list('p1', { email: 'a@example.com', limit: 10 });
      await postbus.messages.list('p1', { status: 'sent', email: 'a@example.com' });
      await postbus.messages.get('p1', 'msg/1');
      expect(sent.map((r) => [r.method, r.url])).toEqual([
        ['POST', 'https://postbus.test/v1/projects/p1/payments'],
        ['GET', 'https://postbus.test/v1/projects/p1/payments?email=a%40example.com&limit=10'],
        ['GET', 'https://postbus.test/v1/projects/p1/messages?status=sent&email=a%40example.com'],
        ['GET', 'https://postbus.test/v1/projects/p1/messages/msg%2F1'],
      ]);
      expect(sent[0]!.body).toEqual({ email: 'a@example.com', payment_id: 'pay_1', amount: 1999, currency: 'EUR' });
    });

    it('messages: the test messages with test: true', async () => {
      const { postbus, sent } = client([json(200, { data: [], next_cursor: null })]);
      await postbus.messages.list('p1', { test: true });
      expect(sent.map((r) => r.url)).toEqual(['https://postbus.test/v1/projects/p1/messages?test=true']);
    });

    it('suppressions: list with filters and a cursor, add as manual with an Idempotency-Key, remove by the encoded email', async () => {
      const page = {
        data: [{ email: 'a+b@example.com', reason: 'manual', created_at: '2026-11-27T05:00:00.000Z', message_id: null }],
        next_cursor: 'c2',
      };
      const { postbus, sent } = client([
        json(200, page),
        json(200, { data: [], next_cursor: null }),
        json(200, accepted),
        json(200, accepted),
      ]);

      const listed = await postbus.suppressions.list('p1', { reason: 'manual', email: 'a+b@example.com', limit: 1 });
      await postbus.suppressions.list('p1', { cursor: listed.next_cursor ?? undefined });
      await postbus.suppressions.add('p1', 'a+b@example.com');
      await postbus.suppressions.remove('p1', 'a+b/c@example.com');

      expect(listed.data[0]?.reason).toBe('manual');
      expect(sent.map((r) => [r.method, r.url])).toEqual([
        ['GET', 'https://postbus.test/v1/projects/p1/suppressions?reason=manual&email=a%2Bb%40example.com&limit=1'],
        ['GET', 'https://postbus.test/v1/projects/p1/suppressions?cursor=c2'],
        ['POST', 'https://postbus.test/v1/projects/p1/suppressions'],
        ['DELETE', 'https://postbus.test/v1/projects/p1/suppressions/a%2Bb%2Fc%40example.com'],
      ]);
      expect(sent[2]!.body).toEqual({ email: 'a+b@example.com', reason: 'manual' });
      expect(sent[2]!.headers['idempotency-key']).toMatch(UUID);
      expect(sent[3]!.body).toBeUndefined();
      expect(sent[3]!.headers['idempotency-key']).toBeUndefined();
      expect(sent[3]!.headers['content-type']).toBeUndefined();
    });

    it('templates.validate POSTs the draft to /templates/validate and hands back what the check found', async () => {
      const found = {
        valid: false,
        errors: [{ field: 'html', line: 2, column: 4, message: "Expecting 'CLOSE', got 'EOF'" }],
        rendered: null,
        variables: ['user.name'],
      };
      const { postbus, sent } = client([json(200, found)]);
      const draft = { subject: 'Hi {{user.name}}', html: '<p>\n{{user.name</p>', user: { name: 'Ann' } };
      const answer = await postbus.templates.validate('p 1', draft);
      expect(answer.errors[0]?.line).toBe(2);
      expect(answer).toEqual(found);
      expect(sent.map((r) => [r.method, r.url, r.body])).toEqual([
        ['POST', 'https://postbus.test/v1/projects/p%201/templates/validate', draft],
      ]);
    });

    it('templates: create with a variant and a layout, save a draft, list versions, publish, read a version, list, delete', async () => {
      const template = { id: 't1', version: 2, latest_version: 2, published_version: 1 };
      const { postbus, sent } = client([
        json(201, template),
        json(200, template),
        json(200, { data: [] }),
        json(200, template),
        json(200, template),
        json(200, { data: [template] }),
        new Response(null, { status: 204 }),
      ]);
      const german = { language: 'de', subject: 'Hallo', html: '<p>Hallo</p>', layout_id: 'l1' };

      await postbus.templates.create('p1', { name: 'Welcome', subject: 'Hi', html: '<p>Hi</p>', layout_id: 'l1', variants: [german] });
      await postbus.templates.save('p1', 't/1', { name: 'Welcome', subject: 'Hi', html: '<mjml></mjml>', format: 'mjml', draft: true });
      await postbus.templates.versions('p1', 't1');
      const published = await postbus.templates.publish('p1', 't1', 2);
      await postbus.templates.get('p1', 't1', 1);
      await postbus.templates.list('p1');
      await expect(postbus.templates.delete('p1', 't1')).resolves.toBeUndefined();

      expect(published).toEqual(template);
      expect(sent.map((r) => [r.method, r.url])).toEqual([
        ['POST', 'https://postbus.test/v1/projects/p1/templates'],
        ['PUT', 'https://postbus.test/v1/projects/p1/templates/t%2F1'],
        ['GET', 'https://postbus.test/v1/projects/p1/templates/t1/versions'],
        ['POST', 'https://postbus.test/v1/projects/p1/templates/t1/versions/2/publish'],
        ['GET', 'https://postbus.test/v1/projects/p1/templates/t1?version=1'],
        ['GET', 'https://postbus.test/v1/projects/p1/templates'],
        ['DELETE', 'https://postbus.test/v1/projects/p1/templates/t1'],
      ]);
      expect(sent[0]!.body).toEqual({ name: 'Welcome', subject: 'Hi', html: '<p>Hi</p>', layout_id: 'l1', variants: [german] });
      expect(sent[1]!.body).toEqual({ name: 'Welcome', subject: 'Hi', html: '<mjml></mjml>', format: 'mjml', draft: true });
      expect(sent[1]!.headers['idempotency-key']).toBeUndefined();
      expect(sent[3]!.body).toBeUndefined();
      expect(sent[3]!.headers['idempotency-key']).toMatch(UUID);
    });

    it('templates.preview renders a saved version in a language; previewDraft an unsaved template', async () => {
      const rendered = { subject: 'Hallo Ada', html: '<p>Hallo Ada</p>', text: 'Hallo Ada' };
      const { postbus, sent } = client([json(200, rendered), json(200, rendered)]);

      const answer = await postbus.templates.preview('p1', 't1', { user: { name: 'Ada' }, language: 'de-AT', version: 3 });
      const draft = {
        subject: 'Hi',
        html: '<p>Hi</p>',
        variants: [{ language: 'de', subject: 'Hallo', html: '<p>Hallo</p>' }],
        language: 'de',
      };
      await postbus.templates.previewDraft('p1', draft);

      expect(answer).toEqual(rendered);
      expect(sent.map((r) => [r.method, r.url, r.body])).toEqual([
        ['POST', 'https://postbus.test/v1/projects/p1/templates/t1/preview', { user: { name: 'Ada' }, language: 'de-AT', version: 3 }],
        ['POST', 'https://postbus.test/v1/projects/p1/template-preview', draft],
      ]);
    });

    it('layouts: create, save a draft, publish it; a delete while a published template uses the layout is a ConflictError', async () => {
      const layout = { id: 'l1', version: 1, latest_version: 1, published_version: 1 };
      const { postbus, sent } = client([
        json(201, layout),
        json(200, layout),
        json(200, layout),
        json(200, layout),
        problem(409, 'layout-in-use'),
      ]);

      const created = await postbus.layouts.create('p1', { name: 'Brand', html: '<main>{{{content}}}</main>' });
      await postbus.layouts.save('p1', 'l1', { name: 'Brand', html: '<div>{{{content}}}</div>', text: '{{{content}}}', draft: true });
      await postbus.layouts.publish('p1', 'l1', 2);
      await postbus.layouts.get('p1', 'l1');
      const refused = await postbus.layouts.delete('p1', 'l1').catch((e: unknown) => e);

      expect(created).toEqual(layout);
      expect(refused).toBeInstanceOf(ConflictError);
      expect((refused as ConflictError).type).toBe('/problems/layout-in-use');
      expect(sent.map((r) => [r.method, r.url])).toEqual([
        ['POST', 'https://postbus.test/v1/projects/p1/layouts'],
        ['PUT', 'https://postbus.test/v1/projects/p1/layouts/l1'],
        ['POST', 'https://postbus.test/v1/projects/p1/layouts/l1/versions/2/publish'],
        ['GET', 'https://postbus.test/v1/projects/p1/layouts/l1'],
        ['DELETE', 'https://postbus.test/v1/projects/p1/layouts/l1'],
      ]);
      expect(sent[1]!.body).toEqual({ name: 'Brand', html: '<div>{{{content}}}</div>', text: '{{{content}}}', draft: true });
    });

    it('suppressions.list without filters sends no query', async () => {
      const { postbus, sent } = client([json(200, { data: [], next_cursor: null })]);
      await postbus.suppressions.list('p1');
      expect(sent[0]!.url).toBe('https://postbus.test/v1/projects/p1/suppressions');
    });

    it('removing a complaint suppression is a ConflictError naming why, not retried; an unknown one a NotFoundError', async () => {
      const { postbus, sent } = client([problem(409, 'suppression-is-a-complaint'), problem(404, 'not-found')]);
      const refused = await postbus.suppressions.remove('p1', 'angry@example.com').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ConflictError);
      expect((refused as ConflictError).type).toBe('/problems/suppression-is-a-complaint');
      await expect(postbus.suppressions.remove('p1', 'nobody@example.com')).rejects.toBeInstanceOf(NotFoundError);
      expect(sent).toHaveLength(2);
    });

    it('a remove the gateway answered 503 is tried again', async () => {
      const { postbus, sent } = client([problem(503, 'unavailable'), json(200, accepted)]);
      await expect(postbus.suppressions.remove('p1', 'a@example.com')).resolves.toEqual(accepted);
      expect(sent.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
    });
  });

  it("SDK_VERSION is the package's version", () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    expect(SDK_VERSION).toBe(manifest.version);
  });
});
