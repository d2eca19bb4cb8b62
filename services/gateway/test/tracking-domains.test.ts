import { randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import { connectDb } from '@postbus/db';
import { call, startDnsServer, type LocalDnsServer } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

const TRACKING_HOST = 'track.postbus.test';

interface Record {
  purpose: string;
  type: 'TXT' | 'CNAME';
  name: string;
  value: string;
  required: boolean;
}
interface Check {
  purpose: string;
  ok: boolean;
  required: boolean;
  detail: string;
}

describe('tracking domains are proven by the client’s own ownership token, not by the CNAME alone', () => {
  let dns: LocalDnsServer;
  let gw: TestGateway;
  let attacker: TestClient;
  let victim: TestClient;

  beforeAll(async () => {
    dns = await startDnsServer();
    gw = await startTestGateway({
      DNS_SERVERS: dns.address,
      SPF_INCLUDE: 'spf.postbus.test',
      TRACKING_HOST,
      SECRETS_KEY: randomBytes(32).toString('base64'),
    });
    [attacker, victim] = await Promise.all([createTestClient(gw.config), createTestClient(gw.config)]);
  });

  afterAll(async () => {
    await gw?.stop();
    await dns?.close();
  });

  const add = (domain: string, client: TestClient) => call(gw.url, 'POST', '/v1/tracking-domains', { auth: client.auth, json: { domain } });
  const verify = (id: string, client: TestClient) => call(gw.url, 'POST', `/v1/tracking-domains/${id}/verify`, { auth: client.auth });
  const get = (id: string, client: TestClient) => call(gw.url, 'GET', `/v1/tracking-domains/${id}`, { auth: client.auth });
  const recordOf = (body: { records: Record[] }, purpose: string) => body.records.find((r) => r.purpose === purpose)!;
  const checkOf = (body: { verification: { records: Check[] } }, purpose: string) =>
    body.verification.records.find((c) => c.purpose === purpose)!;
  const publish = (record: Record) => dns.publish(record.name, record.type, [record.value]);

  it('when a client added the victim’s domain first, the victim verifies with its token and CNAME; the first client does not', async () => {
    const squatted = await add('click.victim.example', attacker);
    expect(squatted.status).toBe(201);
    const claimed = await add('click.victim.example', victim);
    expect(claimed.status).toBe(201);

    // The victim publishes what Postbus gave it: its own token and the CNAME.
    publish(recordOf(claimed.body, 'ownership'));
    publish(recordOf(claimed.body, 'tracking'));

    const theirs = await verify(claimed.body.id, victim);
    expect(theirs.status).toBe(200);
    expect(theirs.body.status).toBe('verified');

    const stolen = await verify(squatted.body.id, attacker);
    expect(stolen.status).toBe(200);
    expect(stolen.body.status).toBe('failed');
    expect(checkOf(stolen.body, 'tracking').ok).toBe(true);
    expect(checkOf(stolen.body, 'ownership')).toMatchObject({ ok: false, required: true });
    expect((await get(squatted.body.id, attacker)).body.status).toBe('failed');
  });

  it('a CNAME to the tracking host alone verifies nothing; the records, one by one and listed, show the ownership TXT as required', async () => {
    const created = await add('links.cname-only.example', victim);
    expect(created.status).toBe(201);
    const ownership = recordOf(created.body, 'ownership');
    expect(ownership).toEqual({
      purpose: 'ownership',
      type: 'TXT',
      name: '_postbus.links.cname-only.example',
      value: expect.stringMatching(/^postbus-verification=[a-f0-9]{32}$/),
      required: true,
    });
    const listed = (await call(gw.url, 'GET', '/v1/tracking-domains', { auth: victim.auth })).body.data as Array<{
      id: string;
      records: Record[];
    }>;
    expect(listed.find((d) => d.id === created.body.id)?.records).toContainEqual(ownership);
    expect((await get(created.body.id, victim)).body.records).toContainEqual(ownership);

    publish(recordOf(created.body, 'tracking'));
    const cnameOnly = await verify(created.body.id, victim);
    expect(cnameOnly.body.status).toBe('failed');
    expect(checkOf(cnameOnly.body, 'tracking').ok).toBe(true);
    expect(checkOf(cnameOnly.body, 'ownership')).toMatchObject({
      ok: false,
      required: true,
      detail: expect.stringContaining('CNAME alone'),
    });

    // Another client's token is not this client's.
    const other = await add('links.cname-only.example', attacker);
    publish(recordOf(other.body, 'ownership'));
    expect((await verify(created.body.id, victim)).body.status).toBe('failed');

    publish(ownership);
    expect((await verify(created.body.id, victim)).body.status).toBe('verified');
  });

  it('a tracking domain verified on its CNAME alone before tokens were required stays verified until its next verify, or until another client proves the domain is its own', async () => {
    const db = await connectDb({ url: gw.config.MONGO_URL, dbName: gw.config.GATEWAY_DB_NAME });
    const at = new Date(Date.now() - 86_400_000);
    const legacy = (domain: string, withToken: boolean) => ({
      _id: new Types.ObjectId(),
      clientId: attacker.clientId,
      kind: 'tracking',
      domain,
      dkim: null,
      records: [
        { purpose: 'tracking', type: 'CNAME', name: domain, value: TRACKING_HOST, required: true },
        ...(withToken
          ? [{ purpose: 'ownership', type: 'TXT', name: `_postbus.${domain}`, value: 'postbus-verification=old', required: false }]
          : []),
      ],
      status: 'verified',
      checks: [
        {
          purpose: 'tracking',
          type: 'CNAME',
          name: domain,
          expected: TRACKING_HOST,
          found: [TRACKING_HOST],
          ok: true,
          required: true,
          detail: '',
        },
      ],
      checkedAt: at,
      verifiedAt: at,
      createdAt: at,
    });
    const older = legacy('t.older.example', true);
    const oldest = legacy('t.oldest.example', false);
    try {
      await db.collection('domains').insertMany([older, oldest]);
    } finally {
      await db.close();
    }

    // Still verified as stored, its token now shown as required.
    const kept = await get(String(older._id), attacker);
    expect(kept.body.status).toBe('verified');
    expect(recordOf(kept.body, 'ownership').required).toBe(true);

    // Its own next verify asks for the token.
    dns.publish('t.older.example', 'CNAME', [TRACKING_HOST]);
    const reverified = await verify(String(older._id), attacker);
    expect(reverified.body.status).toBe('failed');
    expect(checkOf(reverified.body, 'ownership')).toMatchObject({ ok: false, required: true });

    // The other one is withdrawn as soon as another client proves the domain with its token.
    const owner = await add('t.oldest.example', victim);
    publish(recordOf(owner.body, 'tracking'));
    publish(recordOf(owner.body, 'ownership'));
    expect((await verify(owner.body.id, victim)).body.status).toBe('verified');
    const withdrawn = await get(String(oldest._id), attacker);
    expect(withdrawn.body.status).toBe('failed');
    expect(recordOf(withdrawn.body, 'ownership')).toMatchObject({ type: 'TXT', name: '_postbus.t.oldest.example', required: true });
    expect(checkOf(withdrawn.body, 'ownership')).toMatchObject({ ok: false, detail: expect.stringContaining('Another client proved') });
    // The owner's own verification is untouched.
    expect((await get(owner.body.id, victim)).body.status).toBe('verified');
  });

  it('a verification its own token backs stands when another client proves the same domain', async () => {
    const first = await add('links.shared.example', attacker);
    const second = await add('links.shared.example', victim);
    publish(recordOf(first.body, 'tracking'));
    dns.publish('_postbus.links.shared.example', 'TXT', [
      recordOf(first.body, 'ownership').value,
      recordOf(second.body, 'ownership').value,
    ]);
    expect((await verify(first.body.id, attacker)).body.status).toBe('verified');
    expect((await verify(second.body.id, victim)).body.status).toBe('verified');
    expect((await get(first.body.id, attacker)).body.status).toBe('verified');
  });
});
