import { ATTACHMENT_LIMITS, SEND_BODY_LIMIT_BYTES } from '@postbus/contracts';
import { call } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

/** The body limits of the routes that carry attachments, and the 422s of the attachments themselves. */
describe('bodies with attachments', () => {
  let gw: TestGateway;
  let acme: TestClient;
  let projectId: string;

  beforeAll(async () => {
    gw = await startTestGateway();
    acme = await createTestClient(gw.config);
    const created = await call(gw.url, 'POST', '/v1/projects', { auth: acme.auth, json: { name: 'Shop' } });
    expect(created.status).toBe(201);
    projectId = created.body.id;
  });

  afterAll(async () => {
    await gw?.stop();
  });

  const post = (path: string, json: unknown) => call(gw.url, 'POST', `/v1/projects/${projectId}${path}`, { auth: acme.auth, json });
  /** A base64 string of `bytes` decoded bytes (a multiple of 3). */
  const base64Of = (bytes: number) => 'A'.repeat((bytes / 3) * 4);
  const user = { email: 'ann@example.org' };

  it('takes a send of 10 MB of attachments (past 1 MB) to the checks after the body, and answers 413 naming /attachments beyond the limit', async () => {
    const near = await post('/emails/welcome/send', {
      user,
      attachments: [{ filename: 'big.dat', content: base64Of(ATTACHMENT_LIMITS.totalBytes - (ATTACHMENT_LIMITS.totalBytes % 3)) }],
    });
    // Parsed and checked: the project has no such email (nothing was stored or sent).
    expect(near.status).toBe(404);
    const over = await post('/emails/welcome/send', {
      user,
      attachments: [{ filename: 'big.dat', content: 'A'.repeat(SEND_BODY_LIMIT_BYTES) }],
    });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ type: '/problems/payload-too-large', errors: [{ pointer: '/attachments' }] });
  });

  it('answers an attachment of more than 10 MB inside the body limit with a 422 naming /attachments', async () => {
    const res = await post('/emails/welcome/send', { user, attachments: [{ filename: 'big.dat', content: base64Of(10.5 * 1024 * 1024) }] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ pointer: '/attachments', message: expect.stringContaining(String(ATTACHMENT_LIMITS.totalBytes)) }]);
  });

  it('refuses setup.exe with a 422 naming the file, and more than 20 attachments naming /attachments', async () => {
    const exe = await post('/emails/welcome/send', { user, attachments: [{ filename: 'setup.exe', content: 'AAAA' }] });
    expect(exe.status).toBe(422);
    expect(exe.body.detail).toContain('setup.exe');
    expect(exe.body.errors).toEqual([{ pointer: '/attachments/0/filename', message: expect.stringContaining('setup.exe') }]);
    const many = await post('/emails/welcome/send', {
      user,
      attachments: Array.from({ length: ATTACHMENT_LIMITS.count + 1 }, (_, i) => ({ filename: `${i}.txt`, content: 'AAAA' })),
    });
    expect([400, 422]).toContain(many.status);
    expect(many.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/attachments');
    const pathy = await post('/emails/welcome/send', { user, attachments: [{ filename: '../etc/passwd', content: 'AAAA' }] });
    expect(pathy.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/attachments/0/filename');
  });

  it('holds a batch to the send limit (413 naming /messages) and every other route to 1 MB', async () => {
    const batch = await post('/emails/batch', {
      messages: [{ email_key: 'welcome', user, attachments: [{ filename: 'a.dat', content: 'A'.repeat(SEND_BODY_LIMIT_BYTES) }] }],
    });
    expect(batch.status).toBe(413);
    expect(batch.body.errors).toEqual([{ pointer: '/messages', message: expect.any(String) }]);
    const batchNear = await post('/emails/batch', {
      messages: [{ email_key: 'welcome', user, attachments: [{ filename: 'a.dat', content: base64Of(3 * 1024 * 1024) }] }],
    });
    expect(batchNear.status).toBe(200);
    expect(batchNear.body.data[0]).toMatchObject({ status: 'rejected', error: { status: 404 } });
    const users = await post('/users', { email: 'a@b.co', fields: { blob: 'x'.repeat(1024 * 1024 + 10) } });
    expect(users.status).toBe(413);
    expect(users.body.detail).toContain('1mb');
  });
});
