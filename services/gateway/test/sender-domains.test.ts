import { randomBytes } from 'node:crypto';
import { connectDb } from '@postbus/db';
import { call, startDnsServer, type LocalDnsServer } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

const SPF_INCLUDE = 'spf.postbus.test';

describe('sender domains, verified through a real DNS server', () => {
  let dns: LocalDnsServer;
  let gw: TestGateway;
  let acme: TestClient;
  let other: TestClient;

  beforeAll(async () => {
    dns = await startDnsServer();
    gw = await startTestGateway({
      DNS_SERVERS: dns.address,
      SPF_INCLUDE,
      TRACKING_HOST: 'track.postbus.test',
      SECRETS_KEY: randomBytes(32).toString('base64'),
    });
    [acme, other] = await Promise.all([createTestClient(gw.config), createTestClient(gw.config)]);
  });

  afterAll(async () => {
    await gw?.stop();
    await dns?.close();
  });

  const add = (domain: string, client = acme) => call(gw.url, 'POST', '/v1/sender-domains', { auth: client.auth, json: { domain } });
  const verify = (id: string, client = acme) => call(gw.url, 'POST', `/v1/sender-domains/${id}/verify`, { auth: client.auth });
  const byPurpose = (body: { verification: { records: { purpose: string }[] } }, purpose: string) =>
    body.verification.records.find((r) => r.purpose === purpose);

  it('gives the records to publish; verification fails before they are published and succeeds after', async () => {
    const created = await add('Mail.Shop.Example');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ domain: 'mail.shop.example', status: 'pending', verification: null });
    const records = created.body.records as { purpose: string; type: string; name: string; value: string }[];
    expect(records.map((r) => r.purpose)).toEqual(['spf', 'dkim', 'dmarc', 'return_path_mx', 'return_path_spf', 'ownership']);
    expect(records[3]).toMatchObject({ type: 'MX', name: 'pb-bounces.mail.shop.example', required: false });
    expect(records[0]!.value).toBe(`v=spf1 include:${SPF_INCLUDE} ~all`);
    expect(records[1]!.name).toBe(`${created.body.dkim_selector}._domainkey.mail.shop.example`);
    expect(JSON.stringify(created.body)).not.toMatch(/PRIVATE KEY/);

    const before = await verify(created.body.id);
    expect(before.status).toBe(200);
    expect(before.body.status).toBe('failed');
    expect(byPurpose(before.body, 'dkim')).toMatchObject({ ok: false, found: [] });

    // Without the return path's MX the domain verifies (it sends), and the check says its bounces go unread.
    for (const record of records) if (record.type !== 'MX') dns.publish(record.name, record.type as 'TXT', [record.value]);
    const withoutMx = await verify(created.body.id);
    expect(withoutMx.body.status).toBe('verified');
    expect(byPurpose(withoutMx.body, 'return_path_mx')).toMatchObject({
      ok: false,
      required: false,
      detail: expect.stringContaining('go unread'),
    });

    for (const record of records) dns.publish(record.name, record.type as 'TXT' | 'MX', [record.value]);
    const after = await verify(created.body.id);
    expect(after.body.status).toBe('verified');
    expect(after.body.verified_at).toEqual(expect.any(String));
    expect(after.body.verification.records.every((r: { ok: boolean }) => r.ok)).toBe(true);
    expect((await call(gw.url, 'GET', `/v1/sender-domains/${created.body.id}`, { auth: acme.auth })).body.status).toBe('verified');
  });

  it('reports a wrong DKIM key and an SPF record without the include, record by record', async () => {
    const created = await add('news.shop.example');
    const [, dkim] = created.body.records as { name: string; value: string }[];
    dns.publish('news.shop.example', 'TXT', ['v=spf1 include:_spf.google.com ~all']);
    dns.publish(dkim!.name, 'TXT', ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong']);
    const checked = await verify(created.body.id);
    expect(checked.body.status).toBe('failed');
    expect(byPurpose(checked.body, 'spf')).toMatchObject({
      ok: false,
      found: ['v=spf1 include:_spf.google.com ~all'],
      detail: expect.stringContaining(SPF_INCLUDE),
    });
    expect(byPurpose(checked.body, 'dkim')).toMatchObject({
      ok: false,
      found: [expect.stringContaining('wrong')],
      detail: expect.stringContaining('key'),
    });
  });

  it('keeps the DKIM private key sealed in the database', async () => {
    const created = await add('sealed.shop.example');
    const db = await connectDb({ url: gw.config.MONGO_URL, dbName: gw.config.GATEWAY_DB_NAME });
    try {
      const stored = await db.collection('domains').findOne({ domain: 'sealed.shop.example' });
      expect(JSON.stringify(stored)).not.toMatch(/PRIVATE KEY/);
      expect(stored?.['dkim']?.privateKey).toEqual({ iv: expect.any(String), tag: expect.any(String), data: expect.any(String) });
    } finally {
      await db.close();
    }
    expect(created.status).toBe(201);
  });

  it('a client never sees or touches another client’s domains; a repeated domain is a 409; bad input a 400', async () => {
    const created = await add('private.shop.example');
    expect((await call(gw.url, 'GET', `/v1/sender-domains/${created.body.id}`, { auth: other.auth })).status).toBe(404);
    expect((await verify(created.body.id, other)).status).toBe(404);
    expect((await call(gw.url, 'DELETE', `/v1/sender-domains/${created.body.id}`, { auth: other.auth })).status).toBe(404);
    const theirs = await call(gw.url, 'GET', '/v1/sender-domains', { auth: other.auth });
    expect(theirs.body.data).toEqual([]);
    expect((await add('private.shop.example')).status).toBe(409);
    for (const domain of ['localhost', 'not a domain', 'a..b']) expect((await add(domain)).status).toBe(400);
    expect((await call(gw.url, 'DELETE', `/v1/sender-domains/${created.body.id}`, { auth: acme.auth })).status).toBe(204);
    expect((await call(gw.url, 'GET', `/v1/sender-domains/${created.body.id}`, { auth: acme.auth })).status).toBe(404);
  });

  it('a tracking domain is verified by its CNAME to the tracking host and its ownership token, and a project may name it', async () => {
    const created = await call(gw.url, 'POST', '/v1/tracking-domains', { auth: acme.auth, json: { domain: 'links.shop.example' } });
    expect(created.status).toBe(201);
    expect(created.body.records).toEqual([
      { purpose: 'tracking', type: 'CNAME', name: 'links.shop.example', value: 'track.postbus.test', required: true },
      // Required even though no other client has this domain: the CNAME proves nothing of ownership.
      {
        purpose: 'ownership',
        type: 'TXT',
        name: '_postbus.links.shop.example',
        value: expect.stringMatching(/^postbus-verification=[a-f0-9]{32}$/),
        required: true,
      },
    ]);
    const id = created.body.id as string;
    const verifyTracking = () => call(gw.url, 'POST', `/v1/tracking-domains/${id}/verify`, { auth: acme.auth });

    dns.publish('links.shop.example', 'CNAME', ['elsewhere.example.net']);
    const wrong = await verifyTracking();
    expect(wrong.body.status).toBe('failed');
    expect(wrong.body.verification.records[0]).toMatchObject({ ok: false, found: ['elsewhere.example.net'] });

    dns.publish('links.shop.example', 'CNAME', ['track.postbus.test']);
    const ownership = (created.body.records as { name: string; value: string }[])[1]!;
    dns.publish(ownership.name, 'TXT', [ownership.value]);
    expect((await verifyTracking()).body.status).toBe('verified');

    // the kinds do not mix: a tracking domain is no sender domain
    expect((await call(gw.url, 'GET', `/v1/sender-domains/${id}`, { auth: acme.auth })).status).toBe(404);
    expect((await call(gw.url, 'GET', `/v1/tracking-domains/${id}`, { auth: other.auth })).status).toBe(404);
    const project = await call(gw.url, 'POST', '/v1/projects', { auth: acme.auth, json: { name: 'Tracked', tracking_domain_id: id } });
    expect(project.status).toBe(201);
    expect(project.body.tracking_domain_id).toBe(id);
    expect((await call(gw.url, 'POST', '/v1/projects', { auth: other.auth, json: { name: 'Nope', tracking_domain_id: id } })).status).toBe(
      422,
    );
  });
});
