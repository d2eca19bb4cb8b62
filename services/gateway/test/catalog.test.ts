import { Kafka, logLevel } from 'kafkajs';
import { call, defaultKafkaBrokers, TopicRecorder, waitFor, type LocalDnsServer, type RecordedMessage } from '@postbus/testing';
import { startTestGateway, withDnsGateway, type TestClient, type TestGateway } from './helpers';

/** The catalog topic: every change of projects, domains, templates and emails, keyed by entity. */
describe('the catalog on the bus', () => {
  let dns: LocalDnsServer;
  let gw: TestGateway;
  let acme: TestClient;
  let catalog: TopicRecorder;
  const topic = () => `postbus.catalog.v1.${gw.namespace}`;

  withDnsGateway((started) => ({ dns, gw, acme } = started));
  beforeAll(async () => {
    catalog = await new TopicRecorder(defaultKafkaBrokers().split(','), [topic()]).start();
  });
  afterAll(() => catalog?.stop());

  const api = (method: string, path: string, json?: unknown) =>
    call(gw.url, method, path, { auth: acme.auth, ...(json !== undefined ? { json } : {}) });
  const latest = async (key: string): Promise<RecordedMessage> => {
    let found: RecordedMessage | undefined;
    await waitFor(() => (found = catalog.messages.filter((m) => m.key === key).at(-1)) !== undefined, { what: `catalog ${key}` });
    return found!;
  };
  const messagesOf = (key: string) => catalog.messages.filter((m) => m.key === key);

  it('is log-compacted', async () => {
    const kafka = new Kafka({ brokers: defaultKafkaBrokers().split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: 2 /* TOPIC */, name: topic(), configNames: ['cleanup.policy'] }],
      });
      expect(resources[0]?.configEntries[0]?.configValue).toBe('compact');
    } finally {
      await admin.disconnect();
    }
  });

  it('publishes each entity on every change, with its sealed DKIM key, and a deletion marker when it goes', async () => {
    const domain = await api('POST', '/v1/sender-domains', { domain: 'mail.catalog.example' });
    const domainMessage = await latest(`domain:${domain.body.id}`);
    expect(domainMessage.headers['ce_type']).toBe('catalog.domain');
    expect(domainMessage.value).toMatchObject({
      id: domain.body.id,
      clientId: acme.clientId,
      kind: 'sender',
      domain: 'mail.catalog.example',
      status: 'pending',
      dkim: {
        selector: domain.body.dkim_selector,
        privateKey: { iv: expect.any(String), tag: expect.any(String), data: expect.any(String) },
      },
    });
    expect(JSON.stringify(domainMessage.value)).not.toContain('PRIVATE KEY');

    for (const record of domain.body.records as Array<{ name: string; type: 'TXT'; value: string }>)
      dns.publish(record.name, record.type, [record.value]);
    expect((await api('POST', `/v1/sender-domains/${domain.body.id}/verify`)).body.status).toBe('verified');
    await waitFor(() => messagesOf(`domain:${domain.body.id}`).some((m) => (m.value as { status: string }).status === 'verified'));

    const project = await api('POST', '/v1/projects', {
      name: 'Cat',
      sender_domain_id: domain.body.id,
      from_email: 'hi@mail.catalog.example',
    });
    expect((await latest(`project:${project.body.id}`)).value).toMatchObject({ name: 'Cat', senderDomainId: domain.body.id });
    const renamed = await api('PATCH', `/v1/projects/${project.body.id}`, { name: 'Catalogue' });
    expect(renamed.status).toBe(200);
    await waitFor(() => messagesOf(`project:${project.body.id}`).length >= 2);
    const [first, second] = messagesOf(`project:${project.body.id}`).map((m) => m.value as { name: string; revision: number });
    expect(second).toMatchObject({ name: 'Catalogue' });
    expect(second!.revision).toBeGreaterThanOrEqual(first!.revision);

    const p = `/v1/projects/${project.body.id}`;
    const template = await api('POST', `${p}/templates`, { name: 'T', subject: 'Hi {{user.name}}', html: '<p>v1</p>' });
    await api('PUT', `${p}/templates/${template.body.id}`, { name: 'T', subject: 'Hi {{user.name}}', html: '<p>v2</p>' });
    await waitFor(() => messagesOf(`template:${template.body.id}`).some((m) => (m.value as { version: number }).version === 2));
    expect((await latest(`template:${template.body.id}`)).value).toMatchObject({
      projectId: project.body.id,
      version: 2,
      html: '<p>v2</p>',
    });

    const email = await api('POST', `${p}/emails`, { key: 'welcome', name: 'Welcome', template_id: template.body.id, track_clicks: true });
    expect((await latest(`email:${email.body.id}`)).value).toMatchObject({
      key: 'welcome',
      templateId: template.body.id,
      trackClicks: true,
    });
    // A PATCH changes what it names, nothing else: no schema default turns the tracking off.
    const patchedEmail = await api('PATCH', `${p}/emails/welcome`, { name: 'Welcome aboard' });
    expect(patchedEmail.body).toMatchObject({
      name: 'Welcome aboard',
      track_clicks: true,
      track_opens: false,
      send_to_unsubscribed: false,
    });
    expect((await api('PATCH', p, { track_opens: true })).status).toBe(200);
    expect((await api('PATCH', p, { name: 'Renamed' })).body).toMatchObject({ name: 'Renamed', track_opens: true });
    expect((await api('PATCH', p, {})).status).toBe(400);

    expect((await api('DELETE', `${p}/emails/welcome`)).status).toBe(204);
    await waitFor(
      () => (catalog.messages.filter((m) => m.key === `email:${email.body.id}`).at(-1)?.headers['ce_type'] ?? '') === 'catalog.deleted',
    );
    expect((await latest(`email:${email.body.id}`)).value).toMatchObject({ kind: 'email', id: email.body.id, clientId: acme.clientId });
  });

  it('answers a trigger from its cache yet sees a local catalog change at once', async () => {
    const domain = await api('POST', '/v1/sender-domains', { domain: 'mail.cache.example' });
    for (const record of domain.body.records as Array<{ name: string; type: 'TXT'; value: string }>)
      dns.publish(record.name, record.type, [record.value]);
    await api('POST', `/v1/sender-domains/${domain.body.id}/verify`);
    const project = await api('POST', '/v1/projects', {
      name: 'Cache',
      sender_domain_id: domain.body.id,
      from_email: 'hi@mail.cache.example',
    });
    const p = `/v1/projects/${project.body.id}`;
    const template = await api('POST', `${p}/templates`, { name: 'T', subject: 'S', html: '<p>x</p>' });
    await api('POST', `${p}/emails`, { key: 'note', name: 'Note', template_id: template.body.id });
    const send = () => api('POST', `${p}/emails/note/send`, { user: { email: 'zed@cache.example' } });

    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    expect((await api('DELETE', `${p}/emails/note`)).status).toBe(204);
    expect((await send()).status).toBe(404);
  });

  it('republishes the whole catalog when a gateway starts, so a projection can be rebuilt from the topic', async () => {
    const project = await api('POST', '/v1/projects', { name: 'Again' });
    await latest(`project:${project.body.id}`);
    const before = messagesOf(`project:${project.body.id}`).length;
    const second = await startTestGateway({ ...envOf(gw), SECRETS_KEY: gw.config.SECRETS_KEY });
    try {
      await waitFor(() => messagesOf(`project:${project.body.id}`).length > before, { what: 'the republished project' });
    } finally {
      await second.stop();
    }
  });
});

const envOf = (gw: TestGateway): Record<string, string> => ({ GATEWAY_DB_NAME: gw.dbName, KAFKA_NAMESPACE: gw.namespace });
