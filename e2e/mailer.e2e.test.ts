/** @postbus-system shared */
import { request } from 'node:http';
import { Resolver } from 'node:dns/promises';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { call, sleep, waitFor, type CallResult } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';

/** Every accepted trigger becomes one DKIM-signed email at the SMTP sink, with a status timeline. */
describe('the mailer through the public API', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let resolver: Resolver;

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    await createSendableEmail(system, client);
    resolver = new Resolver();
    resolver.setServers([system.dns.address]);
  });

  const api = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}, projectId = client.projectId) =>
    call(system.gatewayUrl, method, `/v1/projects/${projectId}${path}`, {
      auth: client.auth,
      headers,
      ...(json !== undefined ? { json } : {}),
    });
  const send = async (
    email: string,
    key = 'welcome',
    data: Record<string, unknown> = { code: '4711' },
    headers: Record<string, string> = {},
  ) => {
    const res = await api('POST', `/emails/${key}/send`, { user: { email, name: 'Ann <Admin>' }, data }, headers);
    expect(res.status).toBe(200);
    return res.body.message_id as string;
  };
  const messageOf = (id: string): Promise<CallResult> => api('GET', `/messages/${id}`);
  const statusBecomes = (id: string, status: string, timeoutMs = 15_000) =>
    waitFor(
      async () => {
        const res = await messageOf(id);
        return res.status === 200 && res.body.status === status ? res.body : undefined;
      },
      { timeoutMs, intervalMs: 100, what: `message ${id} to be ${status}` },
    );
  const headerId = (id: string, domain = 'mail.e2e.example') => `${id}@${domain}`;

  it('delivers a trigger within 2 s, rendered, DKIM-signed with the published key, with one-click unsubscribe headers, and reads sent', async () => {
    const started = Date.now();
    const id = await send('Ann@Example.org');
    const arrived = await system.sink.client.waitForMessageId(headerId(id), 2_000);
    expect(Date.now() - started).toBeLessThan(2_000);

    const mail = await system.sink.client.get(arrived.ID);
    expect(mail.Subject).toBe('Hello Ann <Admin>');
    expect(mail.To[0]?.Address).toBe('ann@example.org');
    expect(mail.HTML).toContain('Hi Ann &lt;Admin&gt;, your code is 4711.');
    expect(mail.Text).toContain('your code is 4711');
    const raw = await system.sink.client.raw(arrived.ID);
    const verified = await dkimVerify(Buffer.from(raw), {
      resolver: (name: string, type: string) => resolver.resolve(name, type as 'TXT'),
    });
    expect(verified.results[0]?.status.result).toBe('pass');
    expect(verified.results[0]?.signingDomain).toBe('mail.e2e.example');
    const headers = await system.sink.client.headers(arrived.ID);
    expect(headers['List-Unsubscribe-Post']).toEqual(['List-Unsubscribe=One-Click']);
    expect(headers['List-Unsubscribe']?.[0]).toMatch(
      /^<http:\/\/127\.0\.0\.1:\d+\/t\/u\/[\w.-]+>, <mailto:u\.[0-9a-f]{32}\.[a-z2-7]{20}@pb-bounces\.mail\.e2e\.example\?subject=unsubscribe>$/,
    );

    const message = await statusBecomes(id, 'sent');
    expect(message).toMatchObject({ id, email: 'ann@example.org', email_key: 'welcome', subject: 'Hello Ann <Admin>' });
    expect(message.timeline.map((e: { event: string }) => e.event)).toEqual(['queued', 'sent']);
    expect(message.timeline[1]).toMatchObject({ sequence: 2, smtp: { code: 250 } });
    const listed = await api('GET', '/messages?email=ANN@example.org&status=sent');
    expect(listed.body.data.map((m: { id: string }) => m.id)).toContain(id);
  });

  it('defers on 451 and sends on a later attempt; bounces on 550; fails a template that cannot render', async () => {
    await system.sink.client.setFault({ code: 451, message: 'try again later', count: 2 });
    const deferred = await send('bob@example.org');
    const sent = await statusBecomes(deferred, 'sent');
    expect(sent.timeline.map((e: { event: string }) => e.event)).toEqual(['queued', 'deferred', 'deferred', 'sent']);
    expect(sent.timeline[1]).toMatchObject({ smtp: { code: 451 }, attempt: 1 });
    await system.sink.client.waitForMessageId(headerId(deferred));

    await system.sink.client.setFault({ code: 550, message: 'no such user', count: 1 });
    const bounced = await statusBecomes(await send('nobody@example.org'), 'bounced');
    expect(bounced.timeline[1]).toMatchObject({ event: 'bounced', smtp: { code: 550 } });

    const p = `/v1/projects/${client.projectId}`;
    const broken = await call(system.gatewayUrl, 'POST', `${p}/templates`, {
      auth: client.auth,
      json: { name: 'Broken', subject: 'Hi', html: '<p>{{shout user.name}}</p>' },
    });
    await call(system.gatewayUrl, 'POST', `${p}/emails`, {
      auth: client.auth,
      json: { key: 'broken', name: 'Broken', template_id: broken.body.id },
    });
    const failed = await statusBecomes(await send('carol@example.org', 'broken'), 'failed');
    expect(failed.timeline[1].reason).toMatch(/render: Missing helper: "shout"/);
  });

  it('suppresses mail to an unsubscribed user, and the one-click POST from the email header unsubscribes', async () => {
    expect((await api('POST', '/users', { email: 'dan@example.org' })).status).toBe(200);
    await waitFor(async () => (await api('GET', '/users?email=dan@example.org')).status === 200, { what: 'dan created' });
    expect((await api('POST', '/users/unsubscribe', { email: 'dan@example.org' })).status).toBe(200);
    await waitFor(async () => (await api('GET', '/users?email=dan@example.org')).body?.subscription?.status === 'unsubscribed', {
      what: 'dan unsubscribed',
    });
    await sleep(1_000); // the user.unsubscribed event reaches the mailer's projection on its own topic
    const suppressed = await statusBecomes(await send('dan@example.org'), 'suppressed');
    expect(suppressed.timeline[1]).toMatchObject({ event: 'suppressed', reason: 'unsubscribed' });
    expect((await system.sink.client.search('to:dan@example.org')).messages).toHaveLength(0);

    const id = await send('erin@example.org');
    const arrived = await system.sink.client.waitForMessageId(headerId(id));
    const unsubscribeUrl = /<(http[^>]+)>/.exec((await system.sink.client.headers(arrived.ID))['List-Unsubscribe']![0]!)![1]!;
    const page = await fetch(unsubscribeUrl);
    expect(page.status).toBe(200);
    const oneClick = await fetch(unsubscribeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    await waitFor(async () => (await api('GET', '/users?email=erin@example.org')).body?.subscription?.status === 'unsubscribed', {
      what: 'erin unsubscribed in the users service',
    });
    const timeline = await waitFor(async () => {
      const m = await messageOf(id);
      return m.body.timeline.some((e: { event: string }) => e.event === 'unsubscribed') ? m.body.timeline : undefined;
    });
    expect(timeline.map((e: { event: string }) => e.event)).toEqual(['queued', 'sent', 'unsubscribed']);
    const after = await statusBecomes(await send('erin@example.org'), 'suppressed');
    expect(after.status).toBe('suppressed');
  });

  it('a client retry with the same Idempotency-Key sends nothing new', async () => {
    const headers = { 'Idempotency-Key': `retry-${Date.now()}` };
    const first = await send('fay@example.org', 'welcome', { code: '1' }, headers);
    const second = await api(
      'POST',
      '/emails/welcome/send',
      { user: { email: 'fay@example.org', name: 'Ann <Admin>' }, data: { code: '1' } },
      headers,
    );
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.message_id).toBe(first);
    await statusBecomes(first, 'sent');
    await sleep(1_000);
    expect((await system.sink.client.search('to:fay@example.org')).messages).toHaveLength(1);
  });
});

describe('tracking through the public API', () => {
  let system: RunningSystem;
  let client: DemoClient;

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, {
      domain: 'mail.track.example',
      trackingDomain: 'links.track.example',
      trackOpens: true,
      trackClicks: true,
      html: '<html><body><p>Hi {{user.name}}</p><a href="https://example.com/welcome?a=1&amp;b=2">Start</a></body></html>',
    });
  });

  it('records the open pixel and a click, and a forged click token redirects nowhere', async () => {
    const res = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/welcome/send`, {
      auth: client.auth,
      json: { user: { email: 'gus@example.org', name: 'Gus' } },
    });
    const id = res.body.message_id as string;
    const arrived = await system.sink.client.waitForMessageId(`${id}@mail.track.example`);
    const html = (await system.sink.client.get(arrived.ID)).HTML;
    const pixel = /src="http:\/\/links\.track\.example\/t\/o\/([\w.-]+)"/.exec(html)?.[1];
    const click = /href="http:\/\/links\.track\.example\/t\/c\/([\w.-]+)"/.exec(html)?.[1];
    expect(pixel).toBeDefined();
    expect(click).toBeDefined();
    expect(html).not.toContain('https://example.com/welcome');

    // The tracking domain points at the gateway (CNAME); here the gateway is reached directly, with
    // the Host a browser sends: a link answers on its own tracking domain only.
    const onHost = (path: string, host: string) =>
      new Promise<{ status: number; type?: string; location?: string }>((resolve, reject) => {
        const gateway = new URL(system.gatewayUrl);
        request({ host: gateway.hostname, port: gateway.port, path, headers: { host } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], location: res.headers.location });
        })
          .on('error', reject)
          .end();
      });
    const open = await onHost(`/t/o/${pixel!}`, 'links.track.example');
    expect(open.type).toBe('image/gif');
    expect((await onHost(`/t/o/${pixel!}`, new URL(system.gatewayUrl).host)).status).toBe(404);
    const followed = await onHost(`/t/c/${click!}`, 'links.track.example');
    expect(followed.status).toBe(302);
    expect(followed.location).toBe('https://example.com/welcome?a=1&b=2');

    const [header, , signature] = click!.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ a: 'c', m: id, p: client.projectId, u: 'https://evil.example/' })).toString(
      'base64url',
    );
    const forged = await onHost(`/t/c/${header}.${forgedPayload}.${signature}`, 'links.track.example');
    expect(forged.status).toBe(404);
    expect(forged.location).toBeUndefined();

    const message = await waitFor(async () => {
      const m = await call(system.gatewayUrl, 'GET', `/v1/projects/${client.projectId}/messages/${id}`, { auth: client.auth });
      return m.body.opened && m.body.clicked ? m.body : undefined;
    });
    expect(message.status).toBe('sent');
    expect(message.timeline.map((e: { event: string }) => e.event)).toEqual(['queued', 'sent', 'opened', 'clicked']);
    expect(message.timeline[3]).toMatchObject({ url: 'https://example.com/welcome?a=1&b=2', sequence: 4 });
  });
});
