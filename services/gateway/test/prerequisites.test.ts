import { randomBytes } from 'node:crypto';
import { call, defaultKafkaBrokers, startDnsServer, TopicRecorder, waitFor, type LocalDnsServer } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

describe('the prerequisite walk: sender domain → records → verify → project → template → email → trigger', () => {
  let dns: LocalDnsServer;
  let gw: TestGateway;
  let acme: TestClient;
  let sdk: TestClient;
  let triggers: TopicRecorder;

  beforeAll(async () => {
    dns = await startDnsServer();
    gw = await startTestGateway({
      DNS_SERVERS: dns.address,
      SPF_INCLUDE: 'spf.postbus.test',
      SECRETS_KEY: randomBytes(32).toString('base64'),
    });
    acme = await createTestClient(gw.config);
    triggers = await new TopicRecorder(defaultKafkaBrokers().split(','), [`postbus.email.commands.v1.${gw.namespace}`]).start();
  });

  afterAll(async () => {
    await triggers?.stop();
    await gw?.stop();
    await dns?.close();
  });

  const api = (method: string, path: string, json?: unknown, auth = acme.auth) =>
    call(gw.url, method, path, { auth, ...(json !== undefined ? { json } : {}) });

  it('goes from credentials to an accepted trigger through the API alone, refusing each missing step by name', async () => {
    const domain = await api('POST', '/v1/sender-domains', { domain: 'mail.walk.example' });
    expect(domain.status).toBe(201);
    const project = await api('POST', '/v1/projects', { name: 'Walk', from_email: 'hello@mail.walk.example' });
    const p = `/v1/projects/${project.body.id}`;
    const template = await api('POST', `${p}/templates`, {
      name: 'Welcome',
      subject: 'Welcome {{user.name}}',
      html: '<p>Hi {{user.name}}, {{data.code}}</p>',
    });
    expect(template.status).toBe(201);

    expect((await api('POST', `${p}/emails`, { key: 'welcome', name: 'Welcome', template_id: '0123456789abcdef01234567' })).status).toBe(
      422,
    );
    const email = await api('POST', `${p}/emails`, { key: 'welcome', name: 'Welcome', template_id: template.body.id, track_opens: true });
    expect(email.status).toBe(201);
    expect(email.body).toMatchObject({ key: 'welcome', track_opens: true, track_clicks: false, send_to_unsubscribed: false });
    expect((await api('POST', `${p}/emails`, { key: 'welcome', name: 'Again', template_id: template.body.id })).status).toBe(409);
    expect((await api('GET', `${p}/emails/welcome`)).body.id).toBe(email.body.id);

    sdk = await createTestClient(gw.config, 'sdk');
    const send = (key = 'welcome', path = p) =>
      api('POST', `${path}/emails/${key}/send`, { user: { email: 'Ann@Walk.example', name: 'Ann', plan: 'pro' }, data: { code: '1234' } });

    const noDomain = await send();
    expect(noDomain.status).toBe(422);
    expect(noDomain.body.type).toBe('/problems/sender-domain-missing');

    expect((await api('PATCH', p, { sender_domain_id: '0123456789abcdef01234567' })).status).toBe(422);
    expect((await api('PATCH', p, { sender_domain_id: domain.body.id })).status).toBe(200);
    const unverified = await send();
    expect(unverified.status).toBe(422);
    expect(unverified.body).toMatchObject({
      type: '/problems/sender-domain-unverified',
      detail: expect.stringContaining('mail.walk.example'),
    });

    expect((await api('POST', `/v1/sender-domains/${domain.body.id}/verify`)).body.status).toBe('failed');
    for (const record of domain.body.records as { name: string; value: string }[]) dns.publish(record.name, 'TXT', [record.value]);
    expect((await api('POST', `/v1/sender-domains/${domain.body.id}/verify`)).body.status).toBe('verified');

    expect((await send('nope')).status).toBe(404);
    expect((await send('welcome', '/v1/projects/0123456789abcdef01234567')).status).toBe(404);
    const accepted = await send();
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({
      status: 'accepted',
      request_id: expect.any(String),
      message_id: expect.stringMatching(/^msg_[a-f0-9]{32}$/),
    });
    const command = await waitFor(() => triggers.messages.find((m) => m.headers['request_id'] === accepted.body.request_id), {
      what: 'the trigger on Kafka',
    });
    expect(command.headers['ce_type']).toBe('email.trigger');
    expect(command.key).toBe(`${project.body.id}:ann@walk.example`);
    expect(command.value).toMatchObject({
      messageId: accepted.body.message_id,
      emailKey: 'welcome',
      templateId: template.body.id,
      templateVersion: 1,
      user: { email: 'ann@walk.example', name: 'Ann', plan: 'pro' },
      data: { code: '1234' },
    });
    // an sdk key may trigger, but another client's project is invisible to it
    expect((await call(gw.url, 'POST', `${p}/emails/welcome/send`, { auth: sdk.auth, json: { user: { email: 'a@b.co' } } })).status).toBe(
      404,
    );
  });
});
