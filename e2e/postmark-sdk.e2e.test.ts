/** @postbus-system shared */
import { Errors, ServerClient } from 'postmark';
import { call, waitFor } from '@postbus/testing';
import { pythonWith } from './compat/python-venv';
import { projectKey, runPythonTour, suppressInProject } from './compat/sdk-tour';
import { mailsAtSink } from './project-api';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';

const DOMAIN = 'mail.postmark.example';
const FROM = `Postmark Tour <hello@${DOMAIN}>`;
const POSTMARKER_VERSION = '1.0';

/**
 * Issue 50 items 2 and 6: Postmark's official SDKs, unmodified, against Postbus by their
 * documented host options only: npm's postmark (requestHost, useHttps) and PyPI's postmarker
 * (root_api_url), with a key bound to the project in X-Postmark-Server-Token. Each runs the tour:
 * a send with an attachment, a tag and metadata; a batch with one bad message; a template send; a
 * suppressed recipient (406, read by the SDK's own parser); a bad key (401, ErrorCode 10); a read
 * of the message.
 */
describe("Postmark's SDKs against Postbus", () => {
  let system: RunningSystem;
  let client: DemoClient;
  let key: string;
  let postmark: ServerClient;
  const host = () => new URL(system.gatewayUrl).host;

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: DOMAIN, html: '<p>Hi {{user.name}}, your code is {{data.code}}.</p>' });
    key = await projectKey(system, client, 'sdk', 'postmark sdk');
    postmark = new ServerClient(key, { requestHost: host(), useHttps: false });
  }, 120_000);

  const suppress = (email: string) => suppressInProject(system, client, email);
  const delivered = (id: string) =>
    waitFor(
      async () => {
        const details = await postmark.getOutboundMessageDetails(id);
        return details.Status === 'Sent' ? details : undefined;
      },
      { timeoutMs: 30_000, what: `message ${id} sent` },
    );
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(Array.from({ length: 2000 }, (_, i) => i % 256))]);

  it('sends with an attachment, a tag and metadata, and reads the message back in Postmark’s shape', async () => {
    const sent = await postmark.sendEmail({
      From: FROM,
      To: '"Lovelace, Ada" <ada@postmark-tour.example>',
      Cc: 'Cy <cy@postmark-tour.example>',
      Subject: 'Your receipt',
      HtmlBody: '<p>Thanks for order <b>4711</b></p>',
      TextBody: 'Thanks for order 4711',
      Tag: 'receipt',
      Metadata: { order: '4711' },
      Headers: [{ Name: 'X-Order-Id', Value: '4711' }],
      Attachments: [{ Name: 'invoice.pdf', Content: pdf.toString('base64'), ContentType: 'application/pdf', ContentID: null }],
      MessageStream: 'outbound',
    });
    expect(sent).toMatchObject({ To: '"Lovelace, Ada" <ada@postmark-tour.example>', ErrorCode: 0, Message: 'OK' });
    expect(sent.MessageID).toMatch(/^msg_[a-f0-9]{32}$/);

    const mails = await mailsAtSink(system, sent.MessageID, DOMAIN, 2);
    for (const { mail, headers } of mails) {
      expect(mail.From).toMatchObject({ Name: 'Postmark Tour', Address: `hello@${DOMAIN}` });
      expect(mail.To.map((a) => a.Address)).toEqual(['ada@postmark-tour.example']);
      expect(mail.Cc.map((a) => a.Address)).toEqual(['cy@postmark-tour.example']);
      expect(mail.Attachments.map((a) => [a.FileName, a.ContentType, a.Size])).toEqual([['invoice.pdf', 'application/pdf', pdf.length]]);
      expect(headers['X-Order-Id']).toEqual(['4711']);
    }

    const details = await delivered(sent.MessageID);
    expect(details).toMatchObject({
      MessageID: sent.MessageID,
      MessageStream: 'outbound',
      Tag: 'receipt',
      Metadata: { order: '4711' },
      Attachments: ['invoice.pdf'],
      To: [{ Email: 'ada@postmark-tour.example', Name: '' }],
      Cc: [{ Email: 'cy@postmark-tour.example', Name: '' }],
      Subject: 'Your receipt',
      Sandboxed: false,
    });
    expect(details.MessageEvents.map((e) => e.Type)).toContain('Delivered');

    // A key bound to another project of the same client finds no such message.
    const other = await call(system.gatewayUrl, 'POST', '/v1/projects', { auth: client.auth, json: { name: 'Other' } });
    expect(other.status).toBe(201);
    const otherKey = await projectKey(system, { ...client, projectId: other.body.id as string }, 'sdk', 'other project');
    const elsewhere = new ServerClient(otherKey, { requestHost: host(), useHttps: false });
    await expect(elsewhere.getOutboundMessageDetails(sent.MessageID)).rejects.toMatchObject({ code: 701 });
  });

  it('answers a batch message by message, in order: a bad one gets its own ErrorCode, the others are sent', async () => {
    const answers = await postmark.sendEmailBatch([
      { From: FROM, To: 'bat1@postmark-tour.example', Subject: 'One', TextBody: 'one' },
      { From: FROM, To: 'not an address', Subject: 'Two', TextBody: 'two' },
      { From: FROM, To: 'bat3@postmark-tour.example', Subject: 'Three', TextBody: 'three', Attachments: [] },
    ]);
    expect(answers.map((a) => a.ErrorCode)).toEqual([0, 300, 0]);
    expect(answers[1]!.Message).toBe("Invalid 'To' address: 'not an address'.");
    await mailsAtSink(system, answers[2]!.MessageID, DOMAIN, 1);
  });

  it('sends a template: TemplateAlias names the project’s email, TemplateModel is its data', async () => {
    const sent = await postmark.sendEmailWithTemplate({
      TemplateAlias: 'welcome',
      TemplateModel: { code: '4711' },
      From: `hello@${DOMAIN}`,
      To: 'tem@postmark-tour.example',
    });
    expect(sent.ErrorCode).toBe(0);
    const [templated] = await mailsAtSink(system, sent.MessageID, DOMAIN, 1);
    expect(templated!.mail.HTML).toContain('your code is 4711');

    const batch = await postmark.sendEmailBatchWithTemplates([
      { TemplateAlias: 'welcome', TemplateModel: { code: '1' }, From: `hello@${DOMAIN}`, To: 'tem2@postmark-tour.example' },
      { TemplateAlias: 'no-such-email', TemplateModel: {}, From: `hello@${DOMAIN}`, To: 'tem3@postmark-tour.example' },
      { TemplateAlias: 'welcome', TemplateModel: {}, From: `other@${DOMAIN}`, To: 'tem4@postmark-tour.example' },
    ]);
    expect(batch.map((a) => a.ErrorCode)).toEqual([0, 1101, 400]);
  });

  it('refuses a suppressed recipient at once with 406, and the SDK reads the inactive address from the answer', async () => {
    await suppress('gone@postmark-tour.example');
    const refused = await postmark
      .sendEmail({ From: FROM, To: 'Gone <gone@postmark-tour.example>', Subject: 'No', TextBody: 'never sent' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(Errors.InactiveRecipientsError);
    expect(refused).toMatchObject({ statusCode: 422, code: 406, recipients: ['gone@postmark-tour.example'] });
  });

  it('refuses a bad key with 401 and ErrorCode 10, a program attached with 411, and more than 500 messages with 410', async () => {
    const stranger = new ServerClient('pb_sdk_not-a-key', { requestHost: host(), useHttps: false });
    const badKey = await stranger
      .sendEmail({ From: FROM, To: 'x@postmark-tour.example', Subject: 's', TextBody: 't' })
      .catch((e: unknown) => e);
    expect(badKey).toBeInstanceOf(Errors.InvalidAPIKeyError);
    expect(badKey).toMatchObject({ statusCode: 401, code: 10 });

    const program = await postmark
      .sendEmail({
        From: FROM,
        To: 'x@postmark-tour.example',
        Subject: 's',
        TextBody: 't',
        Attachments: [
          { Name: 'setup.exe', Content: Buffer.from('MZ').toString('base64'), ContentType: 'application/octet-stream', ContentID: null },
        ],
      })
      .catch((e: unknown) => e);
    expect(program).toBeInstanceOf(Errors.ApiInputError);
    expect(program).toMatchObject({ statusCode: 422, code: 411 });

    const many = Array.from({ length: 501 }, (_, i) => ({ From: FROM, To: `m${i}@postmark-tour.example`, Subject: 's', TextBody: 't' }));
    expect(await postmark.sendEmailBatch(many).catch((e: unknown) => e)).toMatchObject({ statusCode: 422, code: 410 });
  });

  it('answers what no SDK sends in Postmark’s shape too: bad JSON 402, not JSON 409, an unbound key 401, an unknown message 701', async () => {
    const raw = (path: string, init: { body?: string; type?: string; token?: string; method?: string }) =>
      fetch(`${system.gatewayUrl}${path}`, {
        method: init.method ?? 'POST',
        headers: { 'x-postmark-server-token': init.token ?? key, ...(init.type ? { 'content-type': init.type } : {}) },
        ...(init.body !== undefined ? { body: init.body } : {}),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as { ErrorCode: number; Message: string } }));

    expect(await raw('/email', { body: '{"From":', type: 'application/json' })).toMatchObject({ status: 422, body: { ErrorCode: 402 } });
    expect(await raw('/email', { body: 'From: x', type: 'text/plain' })).toMatchObject({ status: 422, body: { ErrorCode: 409 } });
    const message = JSON.stringify({ From: FROM, To: 'raw@postmark-tour.example', Subject: 's', TextBody: 't' });
    const unbound = await raw('/email', { body: message, type: 'application/json', token: client.apiKey });
    expect(unbound).toMatchObject({ status: 401, body: { ErrorCode: 10, Message: expect.stringContaining('bound to a project') } });
    const unknown = await raw(`/messages/outbound/msg_${'0'.repeat(32)}/details`, { method: 'GET' });
    expect(unknown).toEqual({ status: 422, body: { ErrorCode: 701, Message: 'This message was not found.' } });
    // The key as a Bearer token names the same project.
    const bearer = await fetch(`${system.gatewayUrl}/email`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: message,
    });
    expect(bearer.status).toBe(200);
  });

  it('runs the tour with postmarker, PyPI’s client', async () => {
    const python = pythonWith('postmarker', POSTMARKER_VERSION);
    await suppress('gone-py@postmark-tour.example');
    const spec = {
      base_url: system.gatewayUrl,
      token: key,
      from: FROM,
      to: 'py@postmark-tour.example',
      cc: 'cc-py@postmark-tour.example',
      batch_to: 'batch-py@postmark-tour.example',
      template_to: 'template-py@postmark-tour.example',
      suppressed: 'gone-py@postmark-tour.example',
      email_key: 'welcome',
    };
    const tour = await runPythonTour(python, 'postmarker_tour.py', spec);

    expect(tour['sent']).toMatchObject({ ErrorCode: 0, Message: 'OK', MessageID: expect.stringMatching(/^msg_/) });
    const mails = await mailsAtSink(system, tour['sent'].MessageID, DOMAIN, 2);
    const toAda = mails.find(({ mail }) => mail.To.some((a) => a.Address === 'py@postmark-tour.example'))!;
    expect(toAda.mail.Attachments.map((a) => a.FileName)).toEqual(['note.txt']);
    expect(toAda.headers['X-Tour']).toEqual(['python']);
    expect(tour['batch'].map((a: { ErrorCode: number }) => a.ErrorCode)).toEqual([0, 300]);
    expect(tour['template']).toMatchObject({ ErrorCode: 0 });
    const [templated] = await mailsAtSink(system, tour['template'].MessageID, DOMAIN, 1);
    expect(templated!.mail.HTML).toContain('your code is py-4711');
    expect(tour['inactive']).toMatchObject({
      error_code: 406,
      message: expect.stringContaining('Found inactive addresses: gone-py@postmark-tour.example.'),
    });
    expect(tour['bad_key']).toMatchObject({ error_code: 10 });
    expect(tour['details']).toMatchObject({
      MessageID: tour['sent'].MessageID,
      Tag: 'python-tour',
      Metadata: { tour: 'python' },
      Attachments: ['note.txt'],
    });
  }, 300_000);
});
