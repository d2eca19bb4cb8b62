import { LoopTurns } from '@postbus/http/loop-turns';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Publisher } from '@postbus/bus';
import type { CatalogDomain, CatalogEmail, CatalogProject, CatalogTemplate, EmailTriggerCommand, MessageEvent } from '@postbus/contracts';
import { ReturnPathTokens, SecretBox, TrackingTokens } from '@postbus/crypto';
import { connectDb, type Connection } from '@postbus/db';
import { closeServer } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { TemplateEngine } from '@postbus/templates';
import { call, defaultMongoUrl, internalAuthorization, uniqueName } from '@postbus/testing';
import type { SmtpRelay } from '../src/clients/smtp-relay';
import { Deliverer } from '../src/domain/delivery/deliverer';
import { RetryWorker } from '../src/domain/retry-worker';
import { ScheduledSends } from '../src/domain/scheduled-sends';
import { Timeline } from '../src/domain/timeline';
import { statusReached, TriggerDelivery } from '../src/domain/trigger-delivery';
import { AttachmentStore } from '../src/model/attachment.repository';
import type { CatalogProjection } from '../src/model/catalog.repository';
import { MessageLists } from '../src/model/message-list.repository';
import { MessageStore } from '../src/model/message.repository';
import { RetryQueue } from '../src/model/retry.repository';
import { ScheduleQueue } from '../src/model/schedule.repository';
import { StatusRollups } from '../src/model/rollup.repository';
import { Suppressions } from '../src/model/suppression.repository';
import { startMessageLogServer } from './message-log-server';

const PROJECT = '0000000000000000000000b9';
const secrets = new SecretBox(randomBytes(32).toString('base64'));
const dkimPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** One project on a verified sender domain with a `welcome` email. */
function catalog(): CatalogProjection {
  const base = { revision: 1, clientId: 'cl_1' };
  const entities = new Map<string, unknown>([
    [
      `project:${PROJECT}`,
      {
        ...base,
        id: PROJECT,
        name: 'p',
        fromEmail: 'hello@mail.example.com',
        fromName: null,
        replyTo: null,
        senderDomainId: 'd1',
        trackingDomainId: null,
      } satisfies CatalogProject,
    ],
    [
      'domain:d1',
      {
        ...base,
        id: 'd1',
        kind: 'sender',
        domain: 'mail.example.com',
        status: 'verified',
        dkim: { selector: 'pb1', privateKey: secrets.seal(dkimPem) },
      } satisfies CatalogDomain,
    ],
    [
      'template:t1',
      {
        ...base,
        id: 't1',
        projectId: PROJECT,
        name: 't',
        version: 1,
        subject: 'Hi {{user.email}}',
        html: '<p>Hello</p>',
        text: null,
      } satisfies CatalogTemplate,
    ],
    [
      'email:e1',
      {
        ...base,
        id: 'e1',
        projectId: PROJECT,
        key: 'welcome',
        name: 'welcome',
        templateId: 't1',
        trackOpens: false,
        trackClicks: false,
        sendToUnsubscribed: false,
        fromEmail: null,
        fromName: null,
        replyTo: null,
      } satisfies CatalogEmail,
    ],
  ]);
  return { get: (kind: string, id: string) => Promise.resolve(entities.get(`${kind}:${id}`)) } as unknown as CatalogProjection;
}

/**
 * A test key's messages through the mailer's delivery path against the real MongoDB-wire server:
 * rendered and signed by the real Deliverer, their outcomes simulated (the relay is never called),
 * a deferral retried by the retry worker, a complaint that suppresses nothing, no stats, and their
 * own lists in the message log.
 */
describe('test messages in the mailer', () => {
  let db: Connection;
  let server: Server;
  let url: string;
  let engine: TemplateEngine;
  const relayed: string[] = [];
  const published: MessageEvent[] = [];
  let store: MessageStore;
  let suppressions: Suppressions;
  let rollups: StatusRollups;
  let delivery: TriggerDelivery;
  let retryWorker: RetryWorker;
  const logger = createLogger({ service: 'mailer-test', level: 'error' });

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    store = new MessageStore(db);
    const lists = new MessageLists(db);
    const retries = new RetryQueue(db);
    rollups = new StatusRollups(db, 'test-instance');
    suppressions = new Suppressions(db, (email) => `hash of ${email}`);
    await Promise.all([store.init(), lists.init(), retries.init(), rollups.init(), suppressions.init()]);
    const publisher = {
      publish: (_topic: string, _type: string, _key: string, event: MessageEvent) => {
        published.push(event);
        return Promise.resolve('id');
      },
    } as unknown as Publisher;
    const timeline = new Timeline(store, publisher, retries, { maxAttempts: 3, baseMs: 20, maxMs: 20 }, statusReached(rollups, lists));
    const relay = {
      send: (_from: string, to: string) => {
        relayed.push(to);
        return Promise.resolve({ status: 'sent' as const, code: 250, response: '250 OK' });
      },
    } as unknown as SmtpRelay;
    engine = new TemplateEngine({ threads: 1 });
    const deliverer = new Deliverer({
      catalog: catalog(),
      secrets,
      tokens: new TrackingTokens(randomBytes(32).toString('hex')),
      returnPath: new ReturnPathTokens(randomBytes(32).toString('hex')),
      relay,
      suppressionsOf: (projectId, addresses) => Promise.all(addresses.map((email) => suppressions.reasonFor({ projectId, email }))),
      publicBaseUrl: 'https://pb.example.com',
      catalogWaitMs: 0,
      // Its templates have no language variants: no profile is read.
      profiles: { languageOf: () => Promise.resolve(null) },
      templates: engine,
      runPatienceMs: 3_000,
      attachments: new AttachmentStore(db),
      turns: new LoopTurns(10),
    });
    const scheduled = new ScheduledSends({ store, queue: new ScheduleQueue(db), lists, rollups, timeline });
    delivery = new TriggerDelivery({ store, suppressions, retries, deliverer, timeline, lists, rollups, scheduled });
    retryWorker = new RetryWorker({ retries, store, suppressions, deliverer, timeline, logger, intervalMs: 50 });
    ({ server, url } = await startMessageLogServer({ store, lists, rollups, suppressions }, logger));
  });

  afterAll(async () => {
    if (server) await closeServer(server);
    await engine?.close();
    await db?.dropDatabase();
    await db?.close();
  });

  let n = 0;
  const trigger = (email: string, test: boolean): EmailTriggerCommand => ({
    messageId: `msg_${(++n).toString(16).padStart(32, 'b')}`,
    projectId: PROJECT,
    emailId: 'e1',
    emailKey: 'welcome',
    templateId: 't1',
    templateVersion: 1,
    user: { email },
    data: {},
    acceptedAt: new Date().toISOString(),
    ...(test ? { test: true as const } : {}),
  });
  const read = async (path: string) =>
    call(url, 'GET', `/internal/projects/${PROJECT}${path}`, { auth: await internalAuthorization('mailer') });

  it('simulates each outcome by the address, relays nothing, suppresses nothing, counts nothing, and lists the test messages apart', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const triggers = ['a@example.org', 'b+bounce@example.org', 'c+complaint@example.org', 'd+defer@example.org'].map((email) =>
      trigger(email, true),
    );
    const real = trigger('x+bounce@example.org', false);
    expect(await delivery.run([...triggers, real])).toEqual([]);
    // The retry worker takes the deferred message once it is due.
    await new Promise((r) => setTimeout(r, 100));
    await retryWorker.runDue();
    await rollups.flush();

    expect(relayed).toEqual(['x+bounce@example.org']);
    const [a, b, c, d] = triggers.map((t) => t.messageId);
    const timelineOf = async (id: string) => ((await read(`/messages/${id}`)).body as { timeline: Array<{ event: string }> }).timeline;
    expect((await timelineOf(a!)).map((e) => e.event)).toEqual(['queued', 'sent']);
    expect((await timelineOf(b!)).map((e) => e.event)).toEqual(['queued', 'bounced']);
    expect((await timelineOf(c!)).map((e) => e.event)).toEqual(['queued', 'sent', 'complained']);
    expect((await timelineOf(d!)).map((e) => e.event)).toEqual(['queued', 'deferred', 'sent']);
    const bounced = (await read(`/messages/${b!}`)).body as { test: boolean; timeline: Array<{ smtp?: { code: number } }> };
    expect(bounced.test).toBe(true);
    expect(bounced.timeline[1]!.smtp?.code).toBe(550);
    // Rendered as any other.
    expect((await read(`/messages/${a!}/content`)).body).toMatchObject({ content: { subject: 'Hi a@example.org' }, test: true });

    // Every event of a test message says so; the real message's do not.
    const testIds = new Set(triggers.map((t) => t.messageId));
    const ofTest = published.filter((e) => testIds.has(e.messageId));
    expect(ofTest.length).toBe(10); // 2 + 2 + 3 + 3 entries
    expect(ofTest.every((e) => e.test === true)).toBe(true);
    expect(published.filter((e) => e.messageId === real.messageId).every((e) => e.test === undefined)).toBe(true);

    // The simulated complaint and bounce suppress nothing.
    const docs = await store.messagesById([b!, c!]);
    expect(await suppressions.reasons([...docs.values()])).toEqual([undefined, undefined]);

    // Stats count the real message alone.
    const counts = ((await read(`/messages/stats?from=${day}&to=${day}`)).body as { data: Array<{ counts: Record<string, number> }> })
      .data[0]!.counts;
    expect(counts).toMatchObject({ queued: 1, sent: 1, bounced: 0, deferred: 0 });

    const ids = async (query: string) => ((await read(`/messages${query}`)).body as { data: Array<{ id: string }> }).data.map((m) => m.id);
    expect(await ids('')).toEqual([real.messageId]);
    expect((await ids('?test=true')).sort()).toEqual([a, b, c, d].sort());
    expect(await ids('?test=true&status=bounced')).toEqual([b]);
    expect(await ids('?test=true&email=c%2Bcomplaint%40example.org')).toEqual([c]);
    expect(await ids('?email=c%2Bcomplaint%40example.org')).toEqual([]);
  });
});
