import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basicAuth, call } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

interface Seen {
  path: string;
  query: Record<string, string>;
}

/**
 * A stand-in for the mailer's internal read API (the real one is tested with the mailer): it
 * answers one known message and records what the gateway asked.
 */
class FakeMailer {
  readonly seen: Seen[] = [];
  mode: 'ok' | 'down' | 'broken' = 'ok';
  readonly messageId = 'msg_0123456789abcdef0123456789abcdef';
  /** Known to the mailer but never rendered (suppressed). */
  readonly suppressedId = 'msg_00000000000000000000000000000005';
  readonly content = { subject: 'Welcome', html: '<p>Hello Ann</p>', text: 'Hello Ann', truncated: false };
  /** A message with attachments: their bytes by position; the last one listed is erased (no bytes). */
  readonly attachedId = 'msg_0000000000000000000000000000a77a';
  /** The same, sent with a test key. */
  readonly testAttachedId = 'msg_0000000000000000000000000000a77b';
  readonly files = [
    { filename: 'invoice-4711.pdf', content_type: 'application/pdf', bytes: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5000)]) },
    { filename: 'page.html', content_type: 'text/html', bytes: Buffer.from('<script>alert(document.cookie)</script>') },
    // Stored before the API refused line breaks in names, say: the header must hold it all the same.
    { filename: 'Überweisung "März";\r\nSet-Cookie: a=b.txt', content_type: 'text/plain', bytes: Buffer.from('ok') },
    { filename: 'erased.pdf', content_type: 'application/pdf', bytes: null },
  ];
  private server: Server | undefined;

  message(projectId: string) {
    return {
      id: this.messageId,
      project_id: projectId,
      email_key: 'welcome',
      email: 'ann@example.com',
      user_id: 'u-1',
      status: 'sent',
      subject: 'Welcome',
      opened: true,
      clicked: false,
      created_at: '2025-01-01T10:00:00.000Z',
      updated_at: '2025-01-01T10:00:05.000Z',
      timeline: [
        { sequence: 1, event: 'queued', at: '2025-01-01T10:00:00.000Z' },
        { sequence: 2, event: 'sent', at: '2025-01-01T10:00:01.000Z', smtp: { code: 250, response: '250 OK' } },
        { sequence: 3, event: 'opened', at: '2025-01-01T10:00:05.000Z' },
      ],
    };
  }

  /** A message with the files above; `test` when sent with a test key. */
  attached(projectId: string, id: string) {
    return {
      ...this.message(projectId),
      id,
      test: id === this.testAttachedId,
      attachments: this.files.map(({ filename, content_type, bytes }) => ({ filename, content_type, size: bytes?.length ?? 10 })),
    };
  }

  async start(): Promise<string> {
    this.server = createServer((req: IncomingMessage, res) => {
      const url = new URL(req.url ?? '/', 'http://mailer');
      this.seen.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
      if (this.mode === 'down') {
        req.socket.destroy();
        return;
      }
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': status < 400 ? 'application/json' : 'application/problem+json' });
        res.end(JSON.stringify(body));
      };
      if (this.mode === 'broken') return json(500, { type: '/problems/internal', title: 'Internal error', status: 500 });
      const cancel = /^\/internal\/projects\/([a-f0-9]{24})\/messages\/([^/]+)\/cancel$/.exec(url.pathname);
      if (cancel && req.method === 'POST') {
        // The known message is scheduled (cancelled now); the suppressed one is over (too late).
        if (cancel[2] === this.messageId) return json(200, { ...this.message(cancel[1]!), status: 'canceled' });
        if (cancel[2] === this.suppressedId)
          return json(409, {
            type: '/problems/message-not-cancelable',
            title: 'Conflict',
            status: 409,
            detail: 'The message was sent or is being sent: only a scheduled message can be cancelled.',
          });
      }
      const file = /^\/internal\/projects\/([a-f0-9]{24})\/messages\/([^/]+)\/attachments\/(\d+)$/.exec(url.pathname);
      const bytes = file && [this.attachedId, this.testAttachedId].includes(file[2]!) ? this.files[Number(file[3])]?.bytes : null;
      if (bytes) {
        res.writeHead(200, { 'content-type': this.files[Number(file![3])]!.content_type, 'content-length': String(bytes.length) });
        return res.end(bytes);
      }
      const list = /^\/internal\/projects\/([a-f0-9]{24})\/messages$/.exec(url.pathname);
      if (list) return json(200, { data: [this.message(list[1]!)], next_cursor: 'cursor-2' });
      const content = /^\/internal\/projects\/([a-f0-9]{24})\/messages\/([^/]+)\/content$/.exec(url.pathname);
      if (content?.[2] === this.messageId) return json(200, { content: this.content });
      if (content?.[2] === this.suppressedId) return json(200, { content: null });
      const one = /^\/internal\/projects\/([a-f0-9]{24})\/messages\/([^/]+)$/.exec(url.pathname);
      if (one && one[2] === this.messageId) return json(200, this.message(one[1]!));
      if (one && [this.attachedId, this.testAttachedId].includes(one[2]!)) return json(200, this.attached(one[1]!, one[2]!));
      json(404, { type: '/problems/not-found', title: 'Not found', status: 404 });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

describe('message log reads (proxied to the mailer)', () => {
  let gw: TestGateway;
  let mailer: FakeMailer;
  let acme: TestClient;
  let other: TestClient;
  let projectId: string;

  beforeAll(async () => {
    mailer = new FakeMailer();
    const mailerUrl = await mailer.start();
    gw = await startTestGateway({ MAILER_URL: mailerUrl });
    [acme, other] = await Promise.all([createTestClient(gw.config), createTestClient(gw.config)]);
    const created = await call(gw.url, 'POST', '/v1/projects', { auth: acme.auth, json: { name: 'Shop' } });
    expect(created.status).toBe(201);
    projectId = created.body.id;
  });

  afterAll(async () => {
    await gw?.stop();
    await mailer?.stop();
  });

  beforeEach(() => {
    mailer.seen.length = 0;
    mailer.mode = 'ok';
  });

  const messages = () => `/v1/projects/${projectId}/messages`;

  describe('when a client lists its messages', () => {
    it('then the filters reach the mailer (the email lower-cased) and its page comes back as it is', async () => {
      const res = await call(gw.url, 'GET', `${messages()}?email=Ann%40Example.COM&user_id=u-1&status=sent&limit=10&cursor=abc`, {
        auth: acme.auth,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [mailer.message(projectId)], next_cursor: 'cursor-2' });
      expect(mailer.seen).toEqual([
        {
          path: `/internal/projects/${projectId}/messages`,
          query: { email: 'ann@example.com', user_id: 'u-1', status: 'sent', limit: '10', cursor: 'abc' },
        },
      ]);
    });

    it('then without filters the default page size is asked for', async () => {
      const res = await call(gw.url, 'GET', messages(), { auth: acme.auth });
      expect(res.status).toBe(200);
      expect(mailer.seen).toEqual([{ path: `/internal/projects/${projectId}/messages`, query: { limit: '50' } }]);
    });

    it('then an invalid filter is a 400 that never reaches the mailer', async () => {
      for (const query of ['status=delivered', 'limit=0', 'limit=1000', 'email=not-an-email', 'colour=red']) {
        const res = await call(gw.url, 'GET', `${messages()}?${query}`, { auth: acme.auth });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      expect(mailer.seen).toHaveLength(0);
    });
  });

  describe('when a client reads one message', () => {
    it('then the message with its timeline comes back', async () => {
      const res = await call(gw.url, 'GET', `${messages()}/${mailer.messageId}`, { auth: acme.auth });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(mailer.message(projectId));
      expect(mailer.seen).toEqual([{ path: `/internal/projects/${projectId}/messages/${mailer.messageId}`, query: {} }]);
    });

    it('then a message the mailer does not know is a 404 problem', async () => {
      const res = await call(gw.url, 'GET', `${messages()}/msg_ffffffffffffffffffffffffffffffff`, { auth: acme.auth });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ type: '/problems/not-found', detail: 'No such message in this project.' });
      expect(mailer.seen).toHaveLength(1);
    });

    it('then a malformed message id is a 404 that never reaches the mailer', async () => {
      const res = await call(gw.url, 'GET', `${messages()}/not-a-message-id`, { auth: acme.auth });
      expect(res.status).toBe(404);
      expect(mailer.seen).toHaveLength(0);
    });
  });

  describe('when a client cancels a scheduled message', () => {
    it('then an sdk key may: the mailer decides, its message and its 409 come back as they are; another client is a 404 the mailer never sees', async () => {
      const made = await call(gw.url, 'POST', '/v1/keys', { auth: acme.auth, json: { name: 'backend', scope: 'sdk' } });
      expect(made.status).toBe(201);
      const sdk = basicAuth(acme.clientId, made.body.api_key as string);

      const canceled = await call(gw.url, 'POST', `${messages()}/${mailer.messageId}/cancel`, { auth: sdk });
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ id: mailer.messageId, status: 'canceled' });
      const late = await call(gw.url, 'POST', `${messages()}/${mailer.suppressedId}/cancel`, { auth: sdk });
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ type: '/problems/message-not-cancelable', detail: expect.stringMatching(/being sent/) });
      const unknown = await call(gw.url, 'POST', `${messages()}/msg_ffffffffffffffffffffffffffffffff/cancel`, { auth: sdk });
      expect(unknown.status).toBe(404);
      expect(mailer.seen.map((s) => s.path)).toEqual([
        `/internal/projects/${projectId}/messages/${mailer.messageId}/cancel`,
        `/internal/projects/${projectId}/messages/${mailer.suppressedId}/cancel`,
        `/internal/projects/${projectId}/messages/msg_ffffffffffffffffffffffffffffffff/cancel`,
      ]);

      mailer.seen.length = 0;
      const foreign = await call(gw.url, 'POST', `${messages()}/${mailer.messageId}/cancel`, { auth: other.auth });
      expect(foreign.status).toBe(404);
      expect(mailer.seen).toHaveLength(0);
    });
  });

  describe("when a client reads a message's rendered email", () => {
    it('then its subject, HTML and text come back from the mailer', async () => {
      const res = await call(gw.url, 'GET', `${messages()}/${mailer.messageId}/content`, { auth: acme.auth });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(mailer.content);
      expect(mailer.seen).toEqual([{ path: `/internal/projects/${projectId}/messages/${mailer.messageId}/content`, query: {} }]);
    });

    it('then a message never rendered is a 404 problem that says so, and an unknown one a plain 404', async () => {
      const never = await call(gw.url, 'GET', `${messages()}/${mailer.suppressedId}/content`, { auth: acme.auth });
      expect(never.status).toBe(404);
      expect(never.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(never.body.detail).toMatch(/still queued, or it was suppressed or failed before it was rendered/);
      const unknown = await call(gw.url, 'GET', `${messages()}/msg_ffffffffffffffffffffffffffffffff/content`, { auth: acme.auth });
      expect(unknown.status).toBe(404);
      expect(unknown.body.detail).toBe('No such message in this project.');
    });
  });

  describe("when a client downloads a message's attachment", () => {
    const attachment = (index: number | string, id = mailer.attachedId) => `${messages()}/${id}/attachments/${index}`;
    /** The answer with its bytes as they came (call() would decode them as text). */
    const download = async (path: string, headers: Record<string, string>) => {
      const res = await fetch(`${gw.url}${path}`, { headers });
      return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

    it('then the bytes come back as a file to save: its name in Content-Disposition, its type, nosniff, no caching', async () => {
      const res = await download(attachment(0), { authorization: acme.auth });
      expect(res.status).toBe(200);
      expect(sha256(res.bytes)).toBe(sha256(mailer.files[0]!.bytes!));
      expect(
        Object.fromEntries(
          ['content-type', 'content-length', 'content-disposition', 'x-content-type-options', 'cache-control'].map((h) => [
            h,
            res.headers.get(h),
          ]),
        ),
      ).toEqual({
        'content-type': 'application/pdf',
        'content-length': String(mailer.files[0]!.bytes!.length),
        'content-disposition': `attachment; filename="invoice-4711.pdf"; filename*=UTF-8''invoice-4711.pdf`,
        'x-content-type-options': 'nosniff',
        'cache-control': 'private, no-store',
      });
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(mailer.seen.map((s) => s.path)).toEqual([
        `/internal/projects/${projectId}/messages/${mailer.attachedId}`,
        `/internal/projects/${projectId}/messages/${mailer.attachedId}/attachments/0`,
      ]);
    });

    it('then a page a browser would render is served as octet-stream, and a hostile name stays inside its header', async () => {
      const html = await download(attachment(1), { authorization: acme.auth });
      expect(html.status).toBe(200);
      expect(html.headers.get('content-type')).toBe('application/octet-stream');
      expect(html.bytes.equals(mailer.files[1]!.bytes!)).toBe(true);
      const hostile = await download(attachment(2), { authorization: acme.auth });
      expect(hostile.status).toBe(200);
      expect(hostile.headers.get('set-cookie')).toBeNull();
      const disposition = hostile.headers.get('content-disposition') ?? '';
      expect(disposition).toBe(
        `attachment; filename="_berweisung _M_rz____Set-Cookie: a=b.txt"; filename*=UTF-8''%C3%9Cberweisung%20%22M%C3%A4rz%22%3B%0D%0ASet-Cookie%3A%20a%3Db.txt`,
      );
    });

    it('then from the panel (its session cookie, a same-origin navigation) it downloads; from another site it is refused', async () => {
      const opened = await call(gw.url, 'POST', '/v1/auth/session/cookie', { auth: acme.auth });
      const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0]!;
      const navigation = { cookie, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
      const res = await download(attachment(0), navigation);
      expect(res.status).toBe(200);
      expect(res.bytes.equals(mailer.files[0]!.bytes!)).toBe(true);
      expect((await download(attachment(0), { ...navigation, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    });

    it('then an erased attachment, one past the list and an impossible index are 404s that say which', async () => {
      const erased = await call(gw.url, 'GET', attachment(3), { auth: acme.auth });
      expect(erased.status).toBe(404);
      expect(erased.body.detail).toMatch(/no longer stored: it was erased with the person, or purged/);
      const past = await call(gw.url, 'GET', attachment(4), { auth: acme.auth });
      expect(past.status).toBe(404);
      expect(past.body.detail).toBe('This message has 4 attachments: 4 is none of them (the first is 0).');
      const none = await call(gw.url, 'GET', attachment(0, mailer.messageId), { auth: acme.auth });
      expect(none.body.detail).toBe('This message has 0 attachments: 0 is none of them (the first is 0).');
      mailer.seen.length = 0;
      for (const index of ['20', '-1', 'x', '1.5'])
        expect([index, (await call(gw.url, 'GET', attachment(index), { auth: acme.auth })).status]).toEqual([index, 404]);
      expect(mailer.seen).toHaveLength(0);
    });

    it("then another client's project is a 404 and an sdk key a 403, the mailer never asked; a test key gets only a test message's", async () => {
      expect((await call(gw.url, 'GET', attachment(0), { auth: other.auth })).status).toBe(404);
      const sdk = await call(gw.url, 'POST', '/v1/keys', { auth: acme.auth, json: { name: 'sdk', scope: 'sdk' } });
      expect((await call(gw.url, 'GET', attachment(0), { auth: basicAuth(acme.clientId, sdk.body.api_key as string) })).status).toBe(403);
      expect(mailer.seen).toHaveLength(0);
      const made = await call(gw.url, 'POST', '/v1/keys', { auth: acme.auth, json: { name: 'CI files', scope: 'test' } });
      const testKey = basicAuth(acme.clientId, made.body.api_key as string);
      const real = await call(gw.url, 'GET', attachment(0), { auth: testKey });
      expect([real.status, real.body.detail]).toEqual([404, 'No such message in this project.']);
      const own = await download(attachment(0, mailer.testAttachedId), { authorization: testKey });
      expect(own.status).toBe(200);
      expect(own.bytes.equals(mailer.files[0]!.bytes!)).toBe(true);
    });

    it('then the OpenAPI document describes it as a file, open to test keys', async () => {
      const doc = (await call(gw.url, 'GET', '/v1/openapi.json')).body;
      const op = doc.paths['/v1/projects/{projectId}/messages/{messageId}/attachments/{index}'].get;
      expect(op).toMatchObject({ operationId: 'getMessageAttachment', tags: ['Messages'], description: expect.stringMatching(/test key/) });
      expect(Object.keys(op.responses['200'].content)).toEqual(['*/*']);
      expect(op.responses['200'].headers['Content-Disposition']).toBeDefined();
      expect(op.parameters.find((p: { name: string }) => p.name === 'index').schema).toMatchObject({
        type: 'integer',
        minimum: 0,
        maximum: 19,
      });
    });
  });

  describe('when a test key reads the log', () => {
    let testAuth: string;
    beforeAll(async () => {
      const created = await call(gw.url, 'POST', '/v1/keys', { auth: acme.auth, json: { name: 'CI', scope: 'test' } });
      expect(created.status).toBe(201);
      testAuth = basicAuth(acme.clientId, created.body.api_key as string);
    });

    it('then it lists test messages only, whatever it asks; a full key asks for them with test=true', async () => {
      for (const query of ['', '?test=false']) {
        const res = await call(gw.url, 'GET', `${messages()}${query}`, { auth: testAuth });
        expect(res.status).toBe(200);
      }
      const full = await call(gw.url, 'GET', `${messages()}?test=true`, { auth: acme.auth });
      expect(full.status).toBe(200);
      expect(mailer.seen.map((s) => s.query['test'])).toEqual(['true', 'true', 'true']);
    });

    it('then a message not sent with a test key, and its email, are to it messages that do not exist', async () => {
      const one = await call(gw.url, 'GET', `${messages()}/${mailer.messageId}`, { auth: testAuth });
      const content = await call(gw.url, 'GET', `${messages()}/${mailer.messageId}/content`, { auth: testAuth });
      expect([one.status, content.status]).toEqual([404, 404]);
      expect(content.body.detail).toBe('No such message in this project.');
      expect(mailer.seen).toHaveLength(2);
    });

    it('then the stats are refused with 403 before the mailer is asked', async () => {
      const res = await call(gw.url, 'GET', `${messages()}/stats?from=2026-01-01&to=2026-01-02`, { auth: testAuth });
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/test key/);
      expect(mailer.seen).toHaveLength(0);
    });
  });

  describe("when the admin panel frames a message's email", () => {
    const frame = (id = mailer.messageId, project = projectId) => `/admin/frames/email/${project}/${id}`;
    const panelSession = async (client: TestClient): Promise<Record<string, string>> => {
      const opened = await call(gw.url, 'POST', '/v1/auth/session/cookie', { auth: client.auth });
      return {
        cookie: (opened.headers.get('set-cookie') ?? '').split(';')[0]!,
        'sec-fetch-site': 'same-origin',
        'sec-fetch-dest': 'iframe',
      };
    };

    it('then the HTML is a document of its own whose policy lets its inline styles apply and nothing load or run', async () => {
      const res = await call(gw.url, 'GET', frame(), { headers: await panelSession(acme) });
      expect(res.status).toBe(200);
      expect(res.text).toBe(mailer.content.html);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const policy = (res.headers.get('content-security-policy') ?? '').split('; ');
      expect(policy).toEqual(
        expect.arrayContaining(["default-src 'none'", "style-src 'unsafe-inline'", 'img-src data:', 'sandbox', "frame-ancestors 'self'"]),
      );
      expect(policy.filter((d) => d.startsWith('script-src'))).toEqual([]);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
    });

    it('then it is read only as the content route is: with credentials, scope full, in a project of the client, from the panel itself', async () => {
      const anonymous = await call(gw.url, 'GET', frame(), { headers: { 'sec-fetch-dest': 'iframe' } });
      expect(anonymous.status).toBe(401);
      // A line of text in the frame, never the browser's login dialog.
      expect(anonymous.headers.get('www-authenticate')).toBeNull();
      expect(anonymous.headers.get('content-type')).toMatch(/^text\/plain/);
      const crossSite = { ...(await panelSession(acme)), 'sec-fetch-site': 'cross-site' };
      expect((await call(gw.url, 'GET', frame(), { headers: crossSite })).status).toBe(403);
      const sdk = await createTestClient(gw.config, 'sdk');
      expect((await call(gw.url, 'GET', frame(), { auth: sdk.auth })).status).toBe(403);
      expect((await call(gw.url, 'GET', frame(), { headers: await panelSession(other) })).status).toBe(404);
      expect(mailer.seen).toHaveLength(0);
      for (const id of [mailer.suppressedId, 'msg_ffffffffffffffffffffffffffffffff', 'not-a-message-id']) {
        const missing = await call(gw.url, 'GET', frame(id), { auth: acme.auth });
        expect([id, missing.status]).toEqual([id, 404]);
        expect(missing.headers.get('content-security-policy')).toContain("default-src 'none'");
      }
    });
  });

  describe("when a client asks for another client's project", () => {
    it('then every read is a 404 and the mailer is never asked', async () => {
      expect((await call(gw.url, 'GET', `${messages()}/${mailer.messageId}/content`, { auth: other.auth })).status).toBe(404);
      expect((await call(gw.url, 'GET', messages(), { auth: other.auth })).status).toBe(404);
      expect((await call(gw.url, 'GET', `${messages()}/${mailer.messageId}`, { auth: other.auth })).status).toBe(404);
      expect(mailer.seen).toHaveLength(0);
    });

    it('then without credentials it is a 401', async () => {
      expect((await call(gw.url, 'GET', messages())).status).toBe(401);
    });
  });

  describe('when the mailer is unreachable or failing', () => {
    it.each(['down', 'broken'] as const)('then the reads are a 503 with Retry-After (mailer %s)', async (mode) => {
      mailer.mode = mode;
      for (const path of [messages(), `${messages()}/${mailer.messageId}`]) {
        const res = await call(gw.url, 'GET', path, { auth: acme.auth });
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(res.body).toMatchObject({ type: '/problems/service-unavailable' });
      }
    });
  });

  it('then the OpenAPI document lists both reads under the Messages tag', async () => {
    const doc = (await call(gw.url, 'GET', '/v1/openapi.json')).body;
    expect(doc.paths['/v1/projects/{projectId}/messages'].get).toMatchObject({ operationId: 'listMessages', tags: ['Messages'] });
    expect(doc.paths['/v1/projects/{projectId}/messages/{messageId}'].get).toMatchObject({ operationId: 'getMessage', tags: ['Messages'] });
    expect(doc.paths['/v1/projects/{projectId}/messages/{messageId}/content'].get).toMatchObject({
      operationId: 'getMessageContent',
      tags: ['Messages'],
    });
  });
});
