import { call, type CallResult } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

const WELCOME = { subject: 'Welcome, {{user.name}}', html: '<h1 style="color: #b00">Hi {{user.name}}</h1>', user: { name: 'Ann <b>' } };
const MJML = {
  subject: 'Hi',
  format: 'mjml',
  html: '<mjml><mj-body><mj-section><mj-column><mj-text color="#b00">Hi {{user.name}}</mj-text></mj-column></mj-section></mj-body></mjml>',
  user: { name: 'Ann' },
};

/** The form the panel posts into the frame: one field, the preview request as JSON (or whatever text a test sends in its place). */
const form = (request: unknown): string =>
  new URLSearchParams({ request: typeof request === 'string' ? request : JSON.stringify(request) }).toString();

describe("the template editor's preview, framed in the admin panel (issue 51)", () => {
  let gw: TestGateway;
  let acme: TestClient;
  let other: TestClient;
  let projectId: string;
  let panel: Record<string, string>;

  const frame = (project = projectId) => `/admin/frames/template-preview/${project}`;
  const post = (
    request: unknown,
    options: { auth?: string; headers?: Record<string, string>; project?: string } = {},
  ): Promise<CallResult> =>
    call(gw.url, 'POST', frame(options.project), {
      raw: form(request),
      contentType: 'application/x-www-form-urlencoded',
      ...(options.auth ? { auth: options.auth } : {}),
      headers: { 'sec-fetch-dest': 'iframe', ...options.headers },
    });
  /** What a browser sends with the panel's form: the session cookie, from the panel's own origin. */
  const panelSession = async (client: TestClient): Promise<Record<string, string>> => {
    const opened = await call(gw.url, 'POST', '/v1/auth/session/cookie', { auth: client.auth });
    expect(opened.status).toBe(201);
    return { cookie: (opened.headers.get('set-cookie') ?? '').split(';')[0]!, 'sec-fetch-site': 'same-origin', origin: gw.url };
  };

  beforeAll(async () => {
    gw = await startTestGateway();
    [acme, other] = await Promise.all([createTestClient(gw.config), createTestClient(gw.config)]);
    const project = await call(gw.url, 'POST', '/v1/projects', { auth: acme.auth, json: { name: 'Shop' } });
    projectId = project.body.id as string;
    panel = await panelSession(acme);
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it('when the panel posts a draft, then the HTML /v1 renders is a document of its own whose policy lets its inline styles apply', async () => {
    const res = await post(WELCOME, { headers: panel });
    expect(res.status).toBe(200);
    const rendered = await call(gw.url, 'POST', `/v1/projects/${projectId}/template-preview`, { auth: acme.auth, json: WELCOME });
    expect(res.text).toBe(rendered.body.html);
    expect(res.text).toBe('<h1 style="color: #b00">Hi Ann &lt;b&gt;</h1>');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = (res.headers.get('content-security-policy') ?? '').split('; ');
    expect(policy).toEqual(
      expect.arrayContaining(["default-src 'none'", "style-src 'unsafe-inline'", 'sandbox', "frame-ancestors 'self'"]),
    );
    expect(policy.filter((d) => d.startsWith('script-src'))).toEqual([]);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('when the draft is MJML, then the frame holds the compiled tables; a key (Basic) previews too', async () => {
    const res = await post(MJML, { auth: acme.auth });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<table');
    expect(res.text).toContain('Hi Ann');
    expect(res.text).not.toContain('<mj-');
  });

  it('when the draft is in a layout and a language, then the frame shows the variant inside the layout, as /v1 does', async () => {
    const layout = await call(gw.url, 'POST', `/v1/projects/${projectId}/layouts`, {
      auth: acme.auth,
      json: { name: 'Branded', html: '<header>Acme</header>{{{content}}}<footer>Bye</footer>' },
    });
    expect(layout.status).toBe(201);
    const draft = {
      ...WELCOME,
      layout_id: layout.body.id,
      variants: [{ language: 'de', subject: 'Hallo', html: '<p>Hallo {{user.name}}</p>' }],
      language: 'de-AT',
    };
    const res = await post(draft, { headers: panel });
    expect(res.status).toBe(200);
    expect(res.text).toBe('<header>Acme</header><p>Hallo Ann &lt;b&gt;</p><footer>Bye</footer>');
  });

  it('when the form is not a valid preview request, then the frame shows why in a line of text, never a 500', async () => {
    const cases: Array<[unknown, number, RegExp]> = [
      ['{not json', 400, /^The request could not be parsed: The field request is not valid JSON/],
      [[1, 2], 400, /^The request is invalid: The body must be a JSON object\./],
      [{ subject: 'Hi' }, 400, /^The request is invalid: The body has 1 invalid field\.\n\/html: is required$/],
      [{ ...WELCOME, html: 5 }, 400, /\n\/html: must be string$/],
      [{ ...WELCOME, colour: 'red' }, 400, /\n\/colour: is not allowed$/],
      [{ ...WELCOME, html: '<p>\n{{#if data.vip}}VIP</p>' }, 400, /\n\/html: template syntax error: line 2, column \d+/],
      [{ ...MJML, html: '<mjml><mj-body><mj-section><mj-text>x</mj-text></mj-section></mj-body></mjml>' }, 422, /MJML/],
      [{ ...WELCOME, layout_id: 'f'.repeat(24) }, 422, /layout this project does not have/],
      [{ ...WELCOME, layout_id: 'lay_1' }, 400, /\n\/layout_id: must match/],
    ];
    for (const [request, status, shown] of cases) {
      const res = await post(request, { headers: panel });
      expect([request, res.status]).toEqual([request, status]);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.text).toMatch(shown);
    }
    const noField = await call(gw.url, 'POST', frame(), {
      raw: 'html=x',
      contentType: 'application/x-www-form-urlencoded',
      headers: panel,
    });
    expect(noField.status).toBe(400);
    expect(noField.text).toMatch(/one field, request, holds the preview request as JSON/);
    const json = await call(gw.url, 'POST', frame(), { json: WELCOME, headers: panel });
    expect(json.status).toBe(400);
  });

  it("when the request's JSON is larger than /v1 takes, then it is a 413 in the frame; a form only its percent-encoding makes larger passes", async () => {
    const quoted = { ...WELCOME, html: '<b class="x">&amp;</b>\n'.repeat(22_000) };
    expect(Buffer.byteLength(JSON.stringify(quoted))).toBeLessThan(1024 * 1024);
    expect(Buffer.byteLength(form(quoted))).toBeGreaterThan(1024 * 1024);
    const encoded = await post(quoted, { headers: panel });
    expect(encoded.status).toBe(200);
    expect(encoded.text).toBe(quoted.html);

    const res = await post({ ...WELCOME, html: 'x'.repeat(1024 * 1024) }, { headers: panel });
    expect(res.status).toBe(413);
    expect(res.text).toBe('The request body is too large: The body must not exceed 1mb.');
  });

  it('then it is rendered only as /v1 renders it: with credentials, scope full, in a project of the client', async () => {
    const anonymous = await post(WELCOME);
    expect(anonymous.status).toBe(401);
    // A line of text in the frame, never the browser's login dialog.
    expect(anonymous.headers.get('www-authenticate')).toBeNull();
    expect(anonymous.headers.get('content-type')).toMatch(/^text\/plain/);
    // The cookie without the headers a browser sets is no credential.
    expect((await post(WELCOME, { headers: { cookie: panel['cookie']! } })).status).toBe(401);
    const sdk = await createTestClient(gw.config, 'sdk');
    expect((await post(WELCOME, { auth: sdk.auth })).status).toBe(403);
    expect((await post(WELCOME, { headers: await panelSession(other) })).status).toBe(404);
    expect((await post(WELCOME, { auth: other.auth })).status).toBe(404);
    expect((await post(WELCOME, { auth: acme.auth, project: 'not-a-project' })).status).toBe(404);
  });

  it("when another site's page posts the form (a simple request, no preflight), then the credentials it carries are refused", async () => {
    const fromElsewhere = { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' };
    const withCookie = await post(WELCOME, { headers: { ...panel, ...fromElsewhere } });
    expect(withCookie.status).toBe(403);
    expect(withCookie.text).toMatch(/^Credentials from another site are refused/);
    // Basic credentials a browser stored for the gateway, which it would attach to the post.
    expect((await post(WELCOME, { auth: acme.auth, headers: fromElsewhere })).status).toBe(403);
    // An older browser that sends Origin only, and a sandboxed page (Origin: null).
    expect((await post(WELCOME, { headers: { cookie: panel['cookie']!, origin: 'https://evil.example' } })).status).toBe(403);
    expect((await post(WELCOME, { headers: { cookie: panel['cookie']!, origin: 'null' } })).status).toBe(403);
    // A sibling subdomain or another port is another origin: not the panel.
    expect((await post(WELCOME, { headers: { ...panel, 'sec-fetch-site': 'same-site' } })).status).toBe(403);
  });
});
