/** @postbus-system shared */
import { Resend } from 'resend';
import { call, sleep, waitFor } from '@postbus/testing';
import { pythonWith } from './compat/python-venv';
import { projectKey, runPythonTour, suppressInProject } from './compat/sdk-tour';
import { mailsAtSink } from './project-api';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';

const DOMAIN = 'mail.resend.example';
const FROM = `Resend Tour <hello@${DOMAIN}>`;
const RESEND_PY_VERSION = '2.52.0';

/**
 * Issue 50 items 3 and 6: Resend's official SDKs, unmodified, against Postbus by their documented
 * base URL settings only: npm's resend (the baseUrl option, or RESEND_BASE_URL) and PyPI's resend
 * (RESEND_API_URL), with a key bound to the project as their Bearer key. Each runs the tour: a send
 * with an attachment and tags; a batch with one bad email (refused whole, as Resend's strict mode
 * does; permissive sends the good ones); a template send; a suppressed recipient (accepted, then
 * last_event suppressed); a bad key; a scheduled send moved and cancelled; a read of the email; an
 * Idempotency-Key reused with another body.
 */
describe("Resend's SDKs against Postbus", () => {
  let system: RunningSystem;
  let client: DemoClient;
  let key: string;
  let sdkKey: string;
  let resend: Resend;

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: DOMAIN, html: '<p>Hi, your code is {{data.code}}.</p>' });
    [key, sdkKey] = [
      await projectKey(system, client, 'full', 'resend sdk full'),
      await projectKey(system, client, 'sdk', 'resend sdk sdk'),
    ];
    resend = new Resend(key, { baseUrl: system.gatewayUrl });
  }, 120_000);

  const suppress = (email: string) => suppressInProject(system, client, email);
  /** The email, once its last_event is `event`. */
  const reached = (id: string, event: string) =>
    waitFor(
      async () => {
        const { data } = await resend.emails.get(id);
        return data?.last_event === event ? data : undefined;
      },
      { timeoutMs: 30_000, what: `email ${id} ${event}` },
    );
  /** The mails the sink has for a recipient. */
  const mailsTo = async (address: string) => (await system.sink.client.search(`to:${address}`)).messages;
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(Array.from({ length: 2000 }, (_, i) => i % 256))]);

  it('sends with a Buffer attachment, tags, a cc and a header, and reads the email back in Resend’s shape', async () => {
    const { data, error } = await resend.emails.send({
      from: FROM,
      to: ['Ada Lovelace <ada@resend-tour.example>'],
      cc: 'Cy <cy@resend-tour.example>',
      replyTo: 'help@resend.example',
      subject: 'Your receipt',
      html: '<p>Thanks for order <b>4711</b></p>',
      text: 'Thanks for order 4711',
      headers: { 'X-Order-Id': '4711' },
      tags: [{ name: 'category', value: 'receipt' }],
      attachments: [{ filename: 'invoice.pdf', content: pdf }],
    });
    expect(error).toBeNull();
    expect(data!.id).toMatch(/^msg_[a-f0-9]{32}$/);

    const mails = await mailsAtSink(system, data!.id, DOMAIN, 2);
    for (const { mail, headers } of mails) {
      expect(mail.From).toMatchObject({ Name: 'Resend Tour', Address: `hello@${DOMAIN}` });
      expect(mail.To.map((a) => a.Address)).toEqual(['ada@resend-tour.example']);
      expect(mail.Cc.map((a) => a.Address)).toEqual(['cy@resend-tour.example']);
      expect(mail.ReplyTo.map((a) => a.Address)).toEqual(['help@resend.example']);
      expect(mail.Attachments.map((a) => [a.FileName, a.ContentType, a.Size])).toEqual([['invoice.pdf', 'application/pdf', pdf.length]]);
      expect(headers['X-Order-Id']).toEqual(['4711']);
    }

    const email = await reached(data!.id, 'delivered');
    expect(email).toMatchObject({
      object: 'email',
      id: data!.id,
      to: ['ada@resend-tour.example'],
      cc: ['cy@resend-tour.example'],
      bcc: null,
      subject: 'Your receipt',
      html: '<p>Thanks for order <b>4711</b></p>',
      text: 'Thanks for order 4711',
      scheduled_at: null,
      tags: [{ name: 'category', value: 'receipt' }],
    });
    expect(Date.parse(email.created_at)).not.toBeNaN();
  });

  it("a key bound to another project (of the same client) finds none of this project's emails", async () => {
    const { data } = await resend.emails.send({ from: FROM, to: 'mine@resend-tour.example', subject: 'Mine', text: 'mine' });
    await reached(data!.id, 'delivered');
    const other = await call(system.gatewayUrl, 'POST', '/v1/projects', { auth: client.auth, json: { name: 'Other' } });
    expect(other.status).toBe(201);
    const otherKey = await projectKey(system, { ...client, projectId: other.body.id as string }, 'full', 'other project');
    const elsewhere = new Resend(otherKey, { baseUrl: system.gatewayUrl });
    expect((await elsewhere.emails.get(data!.id)).error).toMatchObject({ name: 'not_found', statusCode: 404 });
    expect((await elsewhere.emails.cancel(data!.id)).error).toMatchObject({ name: 'not_found', statusCode: 404 });
  });

  it('refuses a strict batch (the default) with one bad email whole: nothing of it is sent', async () => {
    const good = (to: string) => ({ from: FROM, to, subject: 'Batch', text: 'batch' });
    const strict = await resend.batch.send([
      good('strict1@resend-tour.example'),
      good('not an address'),
      good('strict3@resend-tour.example'),
    ]);
    expect(strict.data).toBeNull();
    expect(strict.error).toMatchObject({
      name: 'validation_error',
      statusCode: 422,
      message: expect.stringContaining('index 1: Invalid `to` field'),
    });

    // What only the accept path refuses (a From off the project's domain) refuses a strict batch whole too.
    const offDomain = await resend.batch.send([
      good('strict1@resend-tour.example'),
      { ...good('strict3@resend-tour.example'), from: 'someone@elsewhere.example' },
    ]);
    expect(offDomain.data).toBeNull();
    expect(offDomain.error).toMatchObject({ message: expect.stringContaining('index 1') });

    const fixed = await resend.batch.send([good('strict1@resend-tour.example'), good('strict3@resend-tour.example')]);
    expect(fixed.error).toBeNull();
    expect(fixed.data!.data).toHaveLength(2);
    const [first, third] = fixed.data!.data;
    await mailsAtSink(system, first!.id, DOMAIN, 1);
    await mailsAtSink(system, third!.id, DOMAIN, 1);
    // The refused batch sent nothing: each recipient has the fixed batch's mail alone.
    expect(await mailsTo('strict1@resend-tour.example')).toHaveLength(1);
    expect(await mailsTo('strict3@resend-tour.example')).toHaveLength(1);
  });

  it('sends a permissive batch’s good emails (x-batch-validation: permissive) and lists the bad one by its index', async () => {
    const good = (to: string) => ({ from: FROM, to, subject: 'Batch', text: 'batch' });
    const permissive = await resend.batch.send([good('perm1@resend-tour.example'), good('not an address')], {
      batchValidation: 'permissive',
    });
    expect(permissive.error).toBeNull();
    expect(permissive.data!.data).toHaveLength(1);
    expect(permissive.data!.errors).toEqual([{ index: 1, message: expect.stringContaining('`to`') }]);
    await mailsAtSink(system, permissive.data!.data[0]!.id, DOMAIN, 1);
  });

  it("sends one of the project's emails by `template`: its key, and the variables as its data", async () => {
    const { data, error } = await resend.emails.send({
      to: 'tem@resend-tour.example',
      template: { id: 'welcome', variables: { code: '4711' } },
    });
    expect(error).toBeNull();
    const [templated] = await mailsAtSink(system, data!.id, DOMAIN, 1);
    expect(templated!.mail.HTML).toContain('your code is 4711');
  });

  it('accepts a send to a suppressed recipient, as Resend does, and its last_event is suppressed; nothing is mailed', async () => {
    await suppress('gone@resend-tour.example');
    const { data, error } = await resend.emails.send({ from: FROM, to: 'gone@resend-tour.example', subject: 'No', text: 'never sent' });
    expect(error).toBeNull();
    await reached(data!.id, 'suppressed');
    expect(await mailsTo('gone@resend-tour.example')).toEqual([]);
  });

  it('refuses a bad key (403 invalid_api_key), no key (401 missing_api_key), a read with a sending key (401 restricted_api_key), a key bound to no project', async () => {
    const send = { from: FROM, to: 'x@resend-tour.example', subject: 's', text: 't' };
    const stranger = new Resend('pb_full_not-a-key', { baseUrl: system.gatewayUrl });
    expect((await stranger.emails.send(send)).error).toMatchObject({ name: 'invalid_api_key', statusCode: 403 });

    const none = await fetch(`${system.gatewayUrl}/emails`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ name: 'missing_api_key', statusCode: 401 });

    const sent = await new Resend(sdkKey, { baseUrl: system.gatewayUrl }).emails.send(send);
    expect(sent.error).toBeNull();
    const read = await new Resend(sdkKey, { baseUrl: system.gatewayUrl }).emails.get(sent.data!.id);
    expect(read.error).toMatchObject({ name: 'restricted_api_key', statusCode: 401 });

    const unbound = await new Resend(client.apiKey, { baseUrl: system.gatewayUrl }).emails.send(send);
    expect(unbound.error).toMatchObject({
      name: 'invalid_api_key',
      statusCode: 403,
      message: expect.stringContaining('bound to a project'),
    });
  });

  it('schedules a send, moves it (PATCH), cancels it: never mailed, its last_event canceled; a sent email cannot be moved', async () => {
    const { data } = await resend.emails.send({
      from: FROM,
      to: 'later@resend-tour.example',
      subject: 'Later',
      text: 'later',
      scheduledAt: 'in 1 hour',
    });
    const id = data!.id;
    // At once, as SDK users do: the gateway waits the moment it takes the mailer to record the send.
    const later = new Date(Date.now() + 2 * 3_600_000);
    later.setMilliseconds(0);
    expect(await resend.emails.update({ id, scheduledAt: later.toISOString() })).toMatchObject({
      data: { object: 'email', id },
      error: null,
    });
    expect((await resend.emails.get(id)).data).toMatchObject({ last_event: 'scheduled', scheduled_at: later.toISOString() });
    expect(await resend.emails.cancel(id)).toMatchObject({ data: { object: 'email', id }, error: null });
    expect((await resend.emails.get(id)).data).toMatchObject({ last_event: 'canceled' });
    expect((await resend.emails.update({ id, scheduledAt: 'in 3 hours' })).error).toMatchObject({ statusCode: 409 });

    const natural = await resend.emails.update({ id, scheduledAt: 'tomorrow at 9am' });
    expect(natural.error).toMatchObject({ name: 'validation_error', message: expect.stringContaining('ISO 8601') });
    const sent = await resend.emails.send({ from: FROM, to: 'now@resend-tour.example', subject: 'Now', text: 'now' });
    await reached(sent.data!.id, 'delivered');
    expect((await resend.emails.update({ id: sent.data!.id, scheduledAt: 'in 1 hour' })).error).toMatchObject({ statusCode: 409 });
    await sleep(500);
    expect(await mailsTo('later@resend-tour.example')).toEqual([]);
  });

  it('replays an Idempotency-Key with the same body, refuses it with another (409 invalid_idempotent_request), and finds no unknown id', async () => {
    const send = { from: FROM, to: 'once@resend-tour.example', subject: 'Once', text: 'once' };
    const first = await resend.emails.send(send, { idempotencyKey: 'resend-tour/once' });
    const again = await resend.emails.send(send, { idempotencyKey: 'resend-tour/once' });
    expect(again.data!.id).toBe(first.data!.id);
    const other = await resend.emails.send({ ...send, text: 'another body' }, { idempotencyKey: 'resend-tour/once' });
    expect(other.error).toMatchObject({ name: 'invalid_idempotent_request', statusCode: 409 });
    expect((await resend.emails.get('49a3999c-0ce1-4ea6-ab68-afcd6dc2e794')).error).toMatchObject({ name: 'not_found', statusCode: 404 });
  });

  it('takes its base URL from RESEND_BASE_URL, as the SDK documents', async () => {
    const before = process.env['RESEND_BASE_URL'];
    process.env['RESEND_BASE_URL'] = system.gatewayUrl;
    try {
      const { data, error } = await new Resend(key).emails.send({ from: FROM, to: 'env@resend-tour.example', subject: 'Env', text: 'env' });
      expect(error).toBeNull();
      await mailsAtSink(system, data!.id, DOMAIN, 1);
    } finally {
      if (before === undefined) delete process.env['RESEND_BASE_URL'];
      else process.env['RESEND_BASE_URL'] = before;
    }
  });

  it('runs the tour with resend, PyPI’s client', async () => {
    const python = pythonWith('resend', RESEND_PY_VERSION);
    await suppress('gone-py@resend-tour.example');
    const spec = {
      key,
      from: FROM,
      to: 'py@resend-tour.example',
      cc: 'cc-py@resend-tour.example',
      batch_to: 'batch-py@resend-tour.example',
      template_to: 'template-py@resend-tour.example',
      suppressed: 'gone-py@resend-tour.example',
      scheduled_to: 'later-py@resend-tour.example',
      email_key: 'welcome',
    };
    const tour = await runPythonTour(python, 'resend_tour.py', spec, { RESEND_API_URL: system.gatewayUrl });

    const mails = await mailsAtSink(system, tour['sent'], DOMAIN, 2);
    const toAda = mails.find(({ mail }) => mail.To.some((a) => a.Address === 'py@resend-tour.example'))!;
    expect(toAda.mail.Attachments.map((a) => a.FileName)).toEqual(['note.txt']);
    expect(toAda.headers['X-Tour']).toEqual(['python']);
    expect(tour['strict']).toMatchObject({ code: 422, name: 'validation_error' });
    const [templated] = await mailsAtSink(system, tour['template'], DOMAIN, 1);
    expect(templated!.mail.HTML).toContain('your code is py-4711');
    await reached(tour['suppressed'], 'suppressed');
    expect(tour['updated']).toEqual({ answer: { object: 'email', id: tour['scheduled'] } });
    expect(tour['moved']).toEqual({ scheduled_at: new Date(tour['later']).toISOString(), last_event: 'scheduled' });
    expect(tour['canceled']).toEqual({ answer: { object: 'email', id: tour['scheduled'] } });
    expect(tour['after_cancel']).toBe('canceled');
    expect(tour['idempotent'][1]).toBe(tour['idempotent'][0]);
    expect(tour['other_body']).toMatchObject({ code: 409, name: 'invalid_idempotent_request' });
    expect(tour['read']).toMatchObject({
      object: 'email',
      id: tour['sent'],
      to: ['py@resend-tour.example'],
      tags: [{ name: 'tour', value: 'python' }],
    });
    expect(tour['bad_key']).toMatchObject({ code: 403, name: 'invalid_api_key' });
    expect(tour['permissive'].answer.data).toHaveLength(1);
    expect(tour['permissive'].answer.errors).toEqual([{ index: 1, message: expect.stringContaining('`to`') }]);
    // The strict batch sent nothing: the good recipient has the permissive batch's mail alone.
    await mailsAtSink(system, tour['permissive'].answer.data[0].id, DOMAIN, 1);
    expect(await mailsTo('batch-py@resend-tour.example')).toHaveLength(1);
  }, 300_000);
});
