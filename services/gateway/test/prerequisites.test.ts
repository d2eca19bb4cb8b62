import { call, defaultKafkaBrokers, TopicRecorder, waitFor, type LocalDnsServer } from '@postbus/testing';
import { createTestClient, withDnsGateway, type TestClient, type TestGateway } from './helpers';

describe('the prerequisite walk: sender domain → records → verify → project → template → email → trigger', () => {
  let dns: LocalDnsServer;
  let gw: TestGateway;
  let acme: TestClient;
  let sdk: TestClient;
  let triggers: TopicRecorder;

  withDnsGateway((started) => ({ dns, gw, acme } = started));
  beforeAll(async () => {
    triggers = await new TopicRecorder(defaultKafkaBrokers().split(','), [`postbus.email.commands.v1.${gw.namespace}`]).start();
  });
  afterAll(() => triggers?.stop());

  const api = (method: string, path: string, json?: unknown, auth = acme.auth) =>
    call(gw.url, method, path, { auth, ...(json !== undefined ? { json } : {}) });

  it('goes from credentials to an accepted trigger through the API alone, refusing each missing step by name', async () => {
    const domain = await api('POST', '/v1/sender-domains', { domain: 'mail.walk.example' });
    expect(domain.status).toBe(201);
    // A sender address needs a verified sender domain first (issue 13 item 2).
    const early = await api('POST', '/v1/projects', { name: 'Walk', from_email: 'hello@mail.walk.example' });
    expect(early.status).toBe(422);
    expect(early.body.detail).toContain('mail.walk.example');
    const project = await api('POST', '/v1/projects', { name: 'Walk' });
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
    const pendingFrom = await api('PATCH', p, { from_email: 'hello@mail.walk.example' });
    expect(pendingFrom.status).toBe(422);
    expect(pendingFrom.body).toMatchObject({
      type: '/problems/from-email-not-on-sender-domain',
      detail: expect.stringContaining('not verified'),
    });
    const unverified = await send();
    expect(unverified.status).toBe(422);
    expect(unverified.body).toMatchObject({
      type: '/problems/sender-domain-unverified',
      detail: expect.stringContaining('mail.walk.example'),
    });

    expect((await api('POST', `/v1/sender-domains/${domain.body.id}/verify`)).body.status).toBe('failed');
    for (const record of domain.body.records as { name: string; value: string }[]) dns.publish(record.name, 'TXT', [record.value]);
    expect((await api('POST', `/v1/sender-domains/${domain.body.id}/verify`)).body.status).toBe('verified');
    expect((await api('PATCH', p, { from_email: 'hello@mail.walk.example' })).status).toBe(200);

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

  type Rec = { purpose: string; name: string; type: 'TXT' | 'CNAME'; value: string; required: boolean };
  const publishAll = (records: Rec[], except: string[] = []) => {
    for (const r of records) if (!except.includes(r.purpose)) dns.publish(r.name, r.type, [r.value]);
  };
  const verifiedDomain = async (domain: string, auth = acme.auth) => {
    const created = await api('POST', '/v1/sender-domains', { domain }, auth);
    expect(created.status).toBe(201);
    publishAll(created.body.records as Rec[]);
    expect((await api('POST', `/v1/sender-domains/${created.body.id}/verify`, undefined, auth)).body.status).toBe('verified');
    return created.body.id as string;
  };

  it("13.2 a client sends only as its own verified sender domain: another domain's from_email is a 422 naming the project's domain", async () => {
    const senderDomainId = await verifiedDomain('mail.own.example');
    for (const from_email of ['ceo@a.test', 'ceo@sub.mail.own.example']) {
      const refused = await api('POST', '/v1/projects', { name: 'Spoof', sender_domain_id: senderDomainId, from_email });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({
        type: '/problems/from-email-not-on-sender-domain',
        detail: expect.stringContaining('mail.own.example'),
      });
    }
    const project = await api('POST', '/v1/projects', { name: 'Own', sender_domain_id: senderDomainId, from_email: 'Hi@Mail.Own.Example' });
    expect(project.status).toBe(201);
    const p = `/v1/projects/${project.body.id}`;
    expect((await api('PATCH', p, { from_email: 'ceo@a.test' })).status).toBe(422);
    // Moving the project to another domain while its address stays on the old one is refused too.
    const otherDomainId = await verifiedDomain('mail.second.example');
    expect((await api('PATCH', p, { sender_domain_id: otherDomainId })).body.detail).toContain('mail.second.example');
    expect((await api('GET', p)).body).toMatchObject({ sender_domain_id: senderDomainId, from_email: 'Hi@Mail.Own.Example' });

    const template = await api('POST', `${p}/templates`, { name: 'T', subject: 'S', html: '<p>x</p>' });
    const spoofing = await api('POST', `${p}/emails`, { key: 'ceo', name: 'CEO', template_id: template.body.id, from_email: 'ceo@a.test' });
    expect(spoofing.status).toBe(422);
    expect(spoofing.body.detail).toContain('mail.own.example');
    const email = await api('POST', `${p}/emails`, {
      key: 'ceo',
      name: 'CEO',
      template_id: template.body.id,
      from_email: 'ceo@mail.own.example',
    });
    expect(email.status).toBe(201);
    expect((await api('PATCH', `${p}/emails/ceo`, { from_email: 'ceo@a.test' })).status).toBe(422);
  });

  it("13.2 a domain another client added first verifies for the second only with the second's own ownership TXT token", async () => {
    const rival = await createTestClient(gw.config);
    const firstId = await verifiedDomain('contested.example');
    const first = await api('GET', `/v1/sender-domains/${firstId}`);
    const firstOwnership = (first.body.records as Rec[]).find((r) => r.purpose === 'ownership')!;
    expect(firstOwnership).toMatchObject({ type: 'TXT', name: '_postbus.contested.example', required: false });

    const second = await api('POST', '/v1/sender-domains', { domain: 'contested.example' }, rival.auth);
    expect(second.status).toBe(201);
    const ownership = (second.body.records as Rec[]).find((r) => r.purpose === 'ownership')!;
    expect(ownership).toMatchObject({
      name: '_postbus.contested.example',
      value: expect.stringMatching(/^postbus-verification=[a-f0-9]{32}$/),
      required: true,
    });
    expect(ownership.value).not.toBe(firstOwnership.value);
    // SPF and DKIM alone (what the first client's DNS already shows) do not do.
    publishAll(second.body.records as Rec[], ['ownership']);
    const unproven = await api('POST', `/v1/sender-domains/${second.body.id}/verify`, undefined, rival.auth);
    expect(unproven.body.status).toBe('failed');
    expect((unproven.body.verification.records as Array<{ purpose: string; ok: boolean }>).find((r) => r.purpose === 'ownership')?.ok).toBe(
      false,
    );
    // Another client's token does not do either.
    dns.publish(ownership.name, 'TXT', [firstOwnership.value]);
    expect((await api('POST', `/v1/sender-domains/${second.body.id}/verify`, undefined, rival.auth)).body.status).toBe('failed');
    dns.publish(ownership.name, 'TXT', [ownership.value]);
    expect((await api('POST', `/v1/sender-domains/${second.body.id}/verify`, undefined, rival.auth)).body.status).toBe('verified');

    // Tracking domains: the CNAME the first client published is no proof for the second.
    const tracking = await api('POST', '/v1/tracking-domains', { domain: 'click.contested.example' });
    publishAll(tracking.body.records as Rec[]);
    expect((await api('POST', `/v1/tracking-domains/${tracking.body.id}/verify`)).body.status).toBe('verified');
    const rivalTracking = await api('POST', '/v1/tracking-domains', { domain: 'click.contested.example' }, rival.auth);
    expect(rivalTracking.status).toBe(201);
    expect((await api('POST', `/v1/tracking-domains/${rivalTracking.body.id}/verify`, undefined, rival.auth)).body.status).toBe('failed');
    publishAll(rivalTracking.body.records as Rec[]);
    expect((await api('POST', `/v1/tracking-domains/${rivalTracking.body.id}/verify`, undefined, rival.auth)).body.status).toBe('verified');
  });
});
