import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Webhook } from 'standardwebhooks';
import { AddressPolicy } from '@postbus/http';
import { waitFor } from '@postbus/testing';
import { statusPublishing, type Publishing } from '../start/publishing';
import { buildSnapshot, FakeStatusSource, openIncident, PREVIEW_NOW } from '../../preview/scenarios';
import { InMemorySubscriberStore } from '../../preview/in-memory-subscriber-store';

interface Received {
  url: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

describe('webhook subscribers', () => {
  const received: Received[] = [];
  let answers: number[] = [];
  let receiver: Server;
  let receiverUrl: string;
  let app: Server;
  let appUrl: string;
  let router: Publishing;
  const source = new FakeStatusSource(buildSnapshot({ history: true }));
  const subscribers = new InMemorySubscriberStore();

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ url: req.url, headers: req.headers, body });
        res.statusCode = answers.shift() ?? 200;
        res.end();
      });
    });
    receiverUrl = await listen(receiver);
    const server = express();
    app = http.createServer(server);
    appUrl = await listen(app);
    router = statusPublishing(source, {
      baseUrl: appUrl,
      subscribers,
      tokenSecret: 'a-test-secret-of-enough-length',
      allowedWebhookHosts: ['127.0.0.1'],
      webhookRetryScheduleMs: [0, 50, 50],
    });
    server.use(router);
  });

  afterAll(async () => {
    await router.stop();
    await new Promise((r) => receiver.close(r));
    await new Promise((r) => app.close(r));
  });

  it('when an incident is posted, a subscribed webhook gets a Standard Webhooks-signed Statuspage payload, retried after a 500', async () => {
    const res = await fetch(`${appUrl}/api/v2/subscribers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ webhook: `${receiverUrl}/hook` }),
    });
    expect(res.status).toBe(201);
    const { secret, unsubscribe_url } = (await res.json()) as any;
    expect(secret).toMatch(/^whsec_/);
    // The same URL again: refused, and its secret not shown.
    const again = await fetch(`${appUrl}/api/v2/subscribers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ webhook: `${receiverUrl}/hook` }),
    });
    expect(again.status).toBe(409);
    expect(JSON.stringify((await again.json()) as any)).not.toContain('whsec_');

    answers = [500];
    const incident = openIncident(PREVIEW_NOW);
    source.emit({ kind: 'incident', incident, update: incident.updates[0]! });
    await waitFor(() => received.length >= 2, { timeoutMs: 10_000, intervalMs: 20, what: 'the delivery and its retry' });

    const [first, retry] = received;
    expect(first!.headers['webhook-id']).toBe(retry!.headers['webhook-id']);
    for (const delivery of [first!, retry!]) {
      const verified = new Webhook(secret).verify(delivery.body, {
        'webhook-id': String(delivery.headers['webhook-id']),
        'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
        'webhook-signature': String(delivery.headers['webhook-signature']),
      }) as any;
      expect(verified.incident).toMatchObject({ id: 'inc-open', status: 'identified', impact: 'critical' });
      expect(verified.page).toMatchObject({ id: 'postbus' });
      expect(verified.meta.unsubscribe).toBe(unsubscribe_url);
    }
    // A tampered body fails verification: the signature is real.
    expect(() =>
      new Webhook(secret).verify(first!.body.replace('critical', 'minor'), {
        'webhook-id': String(first!.headers['webhook-id']),
        'webhook-timestamp': String(first!.headers['webhook-timestamp']),
        'webhook-signature': String(first!.headers['webhook-signature']),
      }),
    ).toThrow();

    // Unsubscribing through the link stops the deliveries.
    const unsubscribed = await fetch(unsubscribe_url, { method: 'POST' });
    expect(unsubscribed.status).toBe(200);
    expect(await subscribers.listConfirmed()).toEqual([]);
  });

  it('when the service stops with a retry pending, then after its restart the retry goes out, with the same webhook-id and signed', async () => {
    const store = new InMemorySubscriberStore();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    await store.add({ kind: 'webhook', address: `${receiverUrl}/restart`, confirmedAt: new Date(), secret }, new Date());
    const outboxFile = join(mkdtempSync(join(tmpdir(), 'status-webhooks-')), 'snapshot-outbox.json');
    const startRouter = () =>
      statusPublishing(source, {
        baseUrl: appUrl,
        subscribers: store,
        tokenSecret: 'a-test-secret-of-enough-length',
        allowedWebhookHosts: ['127.0.0.1'],
        webhookRetryScheduleMs: [0, 400],
        outboxFile,
      });
    const toThisHook = () => received.filter((r) => r.url === '/restart');

    answers = [500];
    const before = startRouter();
    const incident = openIncident(PREVIEW_NOW);
    source.emit({ kind: 'incident', incident, update: incident.updates[0]! });
    await waitFor(() => toThisHook().length === 1, { timeoutMs: 10_000, intervalMs: 20, what: 'the first attempt' });
    await before.stop();
    await new Promise((r) => setTimeout(r, 800));
    expect(toThisHook()).toHaveLength(1); // stopped: its retry did not go

    const after = startRouter();
    try {
      await waitFor(() => toThisHook().length === 2, { timeoutMs: 10_000, intervalMs: 20, what: 'the retry after the restart' });
      const [first, retry] = toThisHook();
      expect(retry!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      const verified = new Webhook(secret).verify(retry!.body, {
        'webhook-id': String(retry!.headers['webhook-id']),
        'webhook-timestamp': String(retry!.headers['webhook-timestamp']),
        'webhook-signature': String(retry!.headers['webhook-signature']),
      }) as any;
      expect(verified.incident).toMatchObject({ id: 'inc-open' });
    } finally {
      await after.stop();
    }
  });
});

/** A receiver recording each delivery's webhook-id, and a store whose one confirmed webhook points at it. */
async function subscribedReceiver() {
  const received: string[] = [];
  const receiver = http.createServer((req, res) => {
    received.push(String(req.headers['webhook-id']));
    req.resume();
    res.end();
  });
  const receiverUrl = await listen(receiver);
  const store = new InMemorySubscriberStore();
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  await store.add({ kind: 'webhook', address: `${receiverUrl}/hook`, confirmedAt: new Date(), secret }, new Date());
  return { received, receiver, store };
}

describe('notifications while the database is down', () => {
  it('when the subscribers cannot be read at the time of an event, then its notification waits for the database and goes out', async () => {
    const { received, receiver, store } = await subscribedReceiver();
    const listConfirmed = store.listConfirmed.bind(store);
    let failures = 0;
    store.listConfirmed = () => (failures++ < 3 ? Promise.reject(new Error('database down')) : listConfirmed());
    const source = new FakeStatusSource(buildSnapshot());
    const router = statusPublishing(source, {
      baseUrl: 'http://status.example',
      subscribers: store,
      tokenSecret: 'a-test-secret-of-enough-length',
      allowedWebhookHosts: ['127.0.0.1'],
      lookupRetryMs: 20,
    });
    try {
      const incident = openIncident(PREVIEW_NOW);
      source.emit({ kind: 'incident', incident, update: incident.updates[0]! });
      await waitFor(() => received.length === 1, { timeoutMs: 10_000, intervalMs: 20, what: 'the notification once the database answers' });
      expect(failures).toBe(4); // three refused reads, then the one that answered
    } finally {
      await router.stop();
      await new Promise((r) => receiver.close(r));
    }
  });

  it('when the database goes down after the subscribers were read, then events are queued for them at once, across a restart, and go out once it answers', async () => {
    const { received, receiver, store } = await subscribedReceiver();
    let down = false;
    const refuse = () => Promise.reject(new Error('database down'));
    const [listConfirmed, findById] = [store.listConfirmed.bind(store), store.findById.bind(store)];
    store.listConfirmed = () => (down ? refuse() : listConfirmed());
    store.findById = (id) => (down ? refuse() : findById(id));
    const outboxFile = join(mkdtempSync(join(tmpdir(), 'status-outage-')), 'snapshot-outbox.json');
    const source = new FakeStatusSource(buildSnapshot());
    const startRouter = () =>
      statusPublishing(source, {
        baseUrl: 'http://status.example',
        subscribers: store,
        tokenSecret: 'a-test-secret-of-enough-length',
        allowedWebhookHosts: ['127.0.0.1'],
        outboxFile,
        lookupRetryMs: 20,
      });
    const incident = openIncident(PREVIEW_NOW);
    const emit = (update: number) => source.emit({ kind: 'incident', incident, update: incident.updates[update]! });
    const queued = () => (JSON.parse(readFileSync(outboxFile, 'utf8')) as unknown[]).length;

    const before = startRouter();
    emit(0);
    await waitFor(() => received.length === 1, { timeoutMs: 10_000, intervalMs: 20, what: 'the notification before the outage' });
    down = true;
    emit(1);
    await before.idle();
    expect(queued()).toBe(1); // queued for the subscriber last read, waiting to read its address
    await before.stop();

    const after = startRouter(); // a new process, the database still down: it knows the subscribers from the file
    try {
      emit(0);
      await waitFor(() => queued() === 2, { timeoutMs: 10_000, intervalMs: 20, what: 'the event during the outage, queued' });
      expect(received).toHaveLength(1);
      down = false;
      await waitFor(() => received.length === 3, {
        timeoutMs: 10_000,
        intervalMs: 20,
        what: 'both notifications once the database answers',
      });
      expect(new Set(received).size).toBe(3);
    } finally {
      await after.stop();
      await new Promise((r) => receiver.close(r));
    }
  });
});

describe('the webhook address policy', () => {
  it('refuses loopback, private and metadata addresses unless allowed', async () => {
    const policy = new AddressPolicy([]);
    for (const url of ['http://127.0.0.1/x', 'http://10.1.2.3/', 'http://169.254.169.254/latest', 'http://[::1]/', 'ftp://example.com/']) {
      await expect(policy.check(new URL(url))).rejects.toThrow();
    }
    await expect(policy.check(new URL('http://93.184.215.14/hook'))).resolves.toBeUndefined();
    await expect(new AddressPolicy(['127.0.0.1']).check(new URL('http://127.0.0.1:9/x'))).resolves.toBeUndefined();
  });

  it('refuses a private webhook at subscription time with 400', async () => {
    const source = new FakeStatusSource(buildSnapshot());
    const server = express();
    const router = statusPublishing(source, {
      baseUrl: 'http://status.example',
      subscribers: new InMemorySubscriberStore(),
      tokenSecret: 'a-test-secret-of-enough-length',
    });
    server.use(router);
    const app = http.createServer(server);
    const url = await listen(app);
    try {
      const res = await fetch(`${url}/api/v2/subscribers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ webhook: 'http://127.0.0.1:1/hook' }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toMatch(/not a public address/);
    } finally {
      await router.stop();
      await new Promise((r) => app.close(r));
    }
  });
});
