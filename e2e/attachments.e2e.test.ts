/** @postbus-system shared */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { simpleParser } from 'mailparser';
import { call, waitFor } from '@postbus/testing';
import { openPanelBrowser, type PanelBrowser } from './browser';
import { projectCall, withSystemAndClient } from './project-api';
import { createClientAndProject, createSendableEmail, type DemoClient, type RunningSystem } from './system';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Attachments through the real stack: stored once by the mailer, sent byte for byte, listed in the message's reads, downloaded from the panel. */
describe('attachments', () => {
  let system: RunningSystem;
  let client: DemoClient;
  /** The message the first test sent, with the PDF's bytes, for the download tests. */
  let delivered: { id: string; email: string; pdf: Buffer } | undefined;
  let panel: PanelBrowser | undefined;

  afterAll(async () => {
    await panel?.browser.close();
  });

  withSystemAndClient(
    { sendable: { html: '<p><img src="cid:logo@e2e" alt="Shop"> Your invoice {{data.code}}.</p>' }, shared: true },
    (started) => ({ system, client } = started),
  );

  const api = (method: string, path: string, json?: unknown) => projectCall(system, client, method, path, json);
  const send = (body: Record<string, unknown>) => api('POST', '/emails/welcome/send', body);

  it('sends a 1 MB PDF whose bytes arrive unchanged and an inline image the HTML refers to by its Content-ID, and lists both on the message', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(1024 * 1024)]);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(2000)]);
    const sent = await send({
      user: { email: 'buyer@example.org' },
      data: { code: 'INV-4711' },
      attachments: [
        { filename: 'invoice-4711.pdf', content: pdf.toString('base64') },
        { filename: 'logo.png', content: png.toString('base64'), content_id: 'logo@e2e' },
      ],
    });
    expect(sent.status).toBe(200);
    const id = sent.body.message_id as string;

    const arrived = await system.sink.client.waitForMessageId(`${id}@mail.e2e.example`, 30_000);
    const parsed = await simpleParser(Buffer.from(await system.sink.client.raw(arrived.ID)));
    const byName = new Map(parsed.attachments.map((a) => [a.filename, a]));
    expect(byName.get('invoice-4711.pdf')).toMatchObject({ contentType: 'application/pdf', contentDisposition: 'attachment' });
    expect(sha256(byName.get('invoice-4711.pdf')!.content)).toBe(sha256(pdf));
    expect(byName.get('logo.png')).toMatchObject({ contentType: 'image/png', contentDisposition: 'inline', cid: 'logo@e2e' });
    expect(sha256(byName.get('logo.png')!.content)).toBe(sha256(png));
    expect(parsed.html || '').toContain('Your invoice INV-4711.');

    const message = await waitFor(async () => {
      const res = await api('GET', `/messages/${id}`);
      return res.status === 200 && res.body.status === 'sent' ? res : undefined;
    });
    expect(message.body.attachments).toEqual([
      { filename: 'invoice-4711.pdf', content_type: 'application/pdf', size: pdf.length },
      { filename: 'logo.png', content_type: 'image/png', size: png.length, content_id: 'logo@e2e' },
    ]);
    // The panel's frame shows the inline image embedded (its policy loads nothing, not even from this origin).
    // The rendered email is kept a moment after the outcome.
    const frame = await waitFor(async () => {
      const res = await call(system.gatewayUrl, 'GET', `/admin/frames/email/${client.projectId}/${id}`, { auth: client.auth });
      return res.status === 200 ? res : undefined;
    });
    expect(frame.headers.get('content-security-policy')).toContain('img-src data:;');
    expect(frame.text).toContain(`src="data:image/png;base64,${png.toString('base64')}"`);
    expect(frame.text).not.toContain('cid:logo@e2e');
    // The reads never carry the content.
    expect(message.text).not.toContain(pdf.subarray(0, 300).toString('base64'));
    expect(message.text.length).toBeLessThan(10_000);
    delivered = { id, email: 'buyer@example.org', pdf };
  });

  it('downloads an attachment through the API byte for byte, as a file to save', async () => {
    if (!delivered) throw new Error('the send of the first test failed');
    const res = await fetch(`${system.gatewayUrl}/v1/projects/${client.projectId}/messages/${delivered.id}/attachments/0`, {
      headers: { authorization: client.auth },
    });
    expect(res.status).toBe(200);
    expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(sha256(delivered.pdf));
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="invoice-4711.pdf"; filename*=UTF-8''invoice-4711.pdf`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const past = await api('GET', `/messages/${delivered.id}/attachments/2`);
    expect(past.status).toBe(404);
  });

  it("downloads an attachment from the panel: a click on its name in the message saves the file, its SHA-256 the PDF's", async () => {
    if (!delivered) throw new Error('the send of the first test failed');
    const { email } = delivered;
    await waitFor(async () => (await api('GET', `/users?email=${encodeURIComponent(email)}`)).status === 200, {
      what: 'the implicit registration',
    });
    panel = await openPanelBrowser();
    const { page } = panel;
    await page.goto(`${system.gatewayUrl}/admin/`);
    await page.getByLabel('Client ID').fill(client.clientId);
    await page.getByLabel('API key').fill(client.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`**/admin/projects/${client.projectId}/users`);
    const profile = `${system.gatewayUrl}/admin/projects/${client.projectId}/users/${encodeURIComponent(email)}`;
    await page.goto(profile);
    const attachments = page.getByRole('list', { name: 'Attachments' });
    const link = attachments.getByRole('link', { name: 'invoice-4711.pdf' });
    await link.waitFor({ timeout: 30_000 });
    await panel.shot('message-attachments');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('invoice-4711.pdf');
    expect(sha256(await readFile(await download.path()))).toBe(sha256(delivered.pdf));
    // The inline image downloads too, and the panel stays where it was, under its own policy, without a violation.
    const [image] = await Promise.all([page.waitForEvent('download'), attachments.getByRole('link', { name: 'logo.png' }).click()]);
    expect(image.suggestedFilename()).toBe('logo.png');
    expect(page.url()).toBe(profile);
    expect(panel.cspViolations).toEqual([]);
  }, 90_000);

  it("refuses with a 413 the send whose files would pass its project's attachment quota, keeps nothing of it, and holds no other project to it", async () => {
    // The test systems give a project 24 MB (ATTACHMENT_QUOTA_BYTES); the first test stored 1 MB of this one's.
    const nineMegabytes = () => [
      { filename: 'part.pdf', content: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(9 * 1024 * 1024)]).toString('base64') },
    ];
    const user = { email: 'quota@example.org' };
    expect((await send({ user, data: { code: 'Q1' }, attachments: nineMegabytes() })).status).toBe(200);
    expect((await send({ user, data: { code: 'Q2' }, attachments: nineMegabytes() })).status).toBe(200);
    const refused = await send({ user, data: { code: 'Q3' }, attachments: nineMegabytes() });
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ type: '/problems/attachment-quota-exceeded', detail: expect.stringContaining('quota') });
    // The two accepted are sent; the refused one is neither listed nor mailed.
    const listed = await waitFor(async () => {
      const res = await api('GET', `/messages?email=${encodeURIComponent(user.email)}`);
      const data = res.body.data as Array<{ status: string }>;
      return data.length === 2 && data.every((m) => m.status === 'sent') ? data : undefined;
    });
    expect(listed).toHaveLength(2);
    // Another client's project has a quota of its own.
    const other = await createClientAndProject(system);
    await createSendableEmail(system, other, { domain: 'mail.quota-other.example' });
    const elsewhere = await projectCall(system, other, 'POST', '/emails/welcome/send', {
      user: { email: 'elsewhere@example.org' },
      attachments: nineMegabytes(),
    });
    expect(elsewhere.status).toBe(200);
  }, 60_000);

  it('answers an 11 MB attachment and setup.exe with problems naming the field, and sends nothing', async () => {
    const user = { email: 'refused@example.org' };
    const eleven = await send({ user, attachments: [{ filename: 'big.pdf', content: randomBytes(11 * 1024 * 1024).toString('base64') }] });
    expect(eleven.status).toBe(413);
    expect(eleven.body.errors).toEqual([{ pointer: '/attachments', message: expect.stringContaining('10 MB') }]);

    const exe = await send({ user, attachments: [{ filename: 'setup.exe', content: Buffer.from('MZ\x90\x00').toString('base64') }] });
    expect(exe.status).toBe(422);
    expect(exe.body.errors).toEqual([{ pointer: '/attachments/0/filename', message: expect.stringContaining('setup.exe') }]);

    // A program by its content, whatever its name.
    const elf = await send({ user, attachments: [{ filename: 'report.pdf', content: Buffer.from('\x7fELF\x02\x01').toString('base64') }] });
    expect(elf.status).toBe(422);
    expect(elf.body.errors).toEqual([{ pointer: '/attachments/0/content', message: expect.stringContaining('report.pdf') }]);

    const listed = await api('GET', `/messages?email=${encodeURIComponent(user.email)}`);
    expect(listed.body.data).toEqual([]);
  });
});
