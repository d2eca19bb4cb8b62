import type { Server } from 'node:http';
import mongoose from 'mongoose';
import { SendPathPriority, type Publisher } from '@postbus/bus';
import type { EmailTriggerCommand } from '@postbus/contracts';
import { connectDb, type Connection } from '@postbus/db';
import { closeServer } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { call, defaultMongoUrl, internalAuthorization, uniqueName } from '@postbus/testing';
import type { Deliverer, Outcome } from '../src/domain/delivery/deliverer';
import { MailerErasure } from '../src/domain/erasure-participant';
import { TriggerDelivery } from '../src/domain/trigger-delivery';
import { noScheduledSends } from './no-scheduled-sends';
import { emailTriggerHandler } from '../src/handlers/email-trigger.handler';
import { ErasuresDone } from '../src/model/erasure.repository';
import { AttachmentStore } from '../src/model/attachment.repository';
import { MessageLists } from '../src/model/message-list.repository';
import { contentDoc, type RenderedContent } from '../src/domain/message-content';
import { MessageStore } from '../src/model/message.repository';
import type { MessageDoc } from '../src/domain/message-records';
import { RetryQueue } from '../src/model/retry.repository';
import { StatusRollups } from '../src/model/rollup.repository';
import { ScheduleQueue } from '../src/model/schedule.repository';
import { Suppressions } from '../src/model/suppression.repository';
import { MessageRetention } from '../src/domain/message-retention';
import { Timeline } from '../src/domain/timeline';
import { startMessageLogServer } from './message-log-server';
import { acceptedMessage } from './accepted-message';

describe('capping a rendered email for keeping', () => {
  it('keeps an email under the cap whole, and cuts a longer one at the cap without splitting a character', () => {
    const small = contentDoc('msg_1', { subject: 'Hi', html: '<p>héllo</p>', text: 'héllo' }, 64);
    expect(small).toEqual({ _id: 'msg_1', subject: 'Hi', html: '<p>héllo</p>', text: 'héllo', truncated: false });

    const big = contentDoc('msg_2', { subject: 'Hi', html: 'é'.repeat(40), text: 'short' }, 25);
    expect(big.truncated).toBe(true);
    expect(big.html).toBe('é'.repeat(12)); // 24 bytes: the 13th é would be cut in half
    expect(big.text).toBe('short');
  });
});

/**
 * A message's rendered email against the real MongoDB-wire server: kept with the outcome in the
 * same group commit, read through the internal API by `_id`, gone with the message on retention
 * and erasure.
 */
describe("a message's rendered email", () => {
  /** One schedule per connection: mongoose compiles its models once. */
  let schedule: ScheduleQueue;
  const project = '0000000000000000000000d4';
  let db: Connection;
  let store: MessageStore;
  let lists: MessageLists;
  let retries: RetryQueue;
  let timeline: Timeline;
  let server: Server;
  let url: string;
  const logger = createLogger({ service: 'mailer-test', level: 'error' });

  let n = 0;
  const message = (email: string, acceptedAt = new Date(), projectId = project): MessageDoc =>
    acceptedMessage({ id: `msg_${(++n).toString(16).padStart(32, 'c')}`, projectId, email, acceptedAt });
  const rendered = (name: string): RenderedContent => ({
    subject: `Welcome ${name}`,
    html: `<p>Hello ${name}</p><script>document.title='pwned'</script>`,
    text: `Hello ${name}`,
  });

  /** A message as the trigger handler writes it: stored, listed, then its attempt recorded. */
  async function send(m: MessageDoc, content: RenderedContent | undefined, event: 'sent' | 'suppressed' = 'sent'): Promise<MessageDoc> {
    await store.insertNew([m]);
    await lists.accepted(m, 'new');
    await timeline.recordAttempt(m, 1, { event, ...(content ? { subject: content.subject, content } : {}) });
    return m;
  }

  // A token per call: the internal tokens live 60 s, less than this file may take on a loaded machine.
  const getContent = async (m: MessageDoc, projectId = project) =>
    call(url, 'GET', `/internal/projects/${projectId}/messages/${m._id}/content`, { auth: await internalAuthorization('mailer') });

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    store = new MessageStore(db);
    lists = new MessageLists(db);
    retries = new RetryQueue(db);
    const rollups = new StatusRollups(db, 'test-instance');
    schedule = new ScheduleQueue(db);
    await Promise.all([store.init(), lists.init(), retries.init(), rollups.init(), schedule.init()]);
    const publisher = { publish: () => Promise.resolve('id') } as unknown as Publisher;
    timeline = new Timeline(store, publisher, retries, { maxAttempts: 3, baseMs: 60_000, maxMs: 60_000 }, (m, e) =>
      lists.reached(m, e.event as 'sent', e.at),
    );
    ({ server, url } = await startMessageLogServer(
      { store, lists, rollups, suppressions: new Suppressions(db, (email) => `hash of ${email}`) },
      logger,
    ));
  });

  afterAll(async () => {
    mongoose.set('debug', false);
    if (server) await closeServer(server);
    await db?.dropDatabase();
    await db?.close();
  });

  it('is read through the internal API (point reads under QUERY_AUDIT=strict); another project, an unknown id and a message never rendered are told apart', async () => {
    const ann = await send(message('ann@example.org'), rendered('Ann'));
    const suppressed = await send(message('sup@example.org'), undefined, 'suppressed');

    const found = await getContent(ann);
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ content: { ...rendered('Ann'), truncated: false }, test: false });
    expect((await getContent(ann, '0000000000000000000000e5')).status).toBe(404);
    expect((await getContent(message('nobody@example.org'))).status).toBe(404); // never stored
    const neverRendered = await getContent(suppressed);
    expect(neverRendered.status).toBe(200);
    expect(neverRendered.body).toEqual({ content: null, test: false });
  });

  it('keeps the first rendering when a retry renders the email again', async () => {
    const bob = message('bob@example.org');
    await store.insertNew([bob]);
    await timeline.recordAttempt(bob, 1, { event: 'deferred', subject: 'First', content: { ...rendered('Bob'), subject: 'First' } });
    await timeline.recordAttempt(bob, 2, { event: 'sent', subject: 'Second', content: { ...rendered('Bob'), subject: 'Second' } });
    expect((await getContent(bob)).body.content.subject).toBe('First');
    await retries.cancel([bob._id]);
  });

  it('is written in group commits after the outcomes, never a command of its own per mail', async () => {
    const commands: string[] = [];
    mongoose.set('debug', (collection: string, method: string) => {
      if (collection === 'message_events' || collection === 'message_contents') commands.push(`${collection}.${method}`);
    });
    const count = (c: string) => commands.filter((x) => x === c).length;
    const mails = Array.from({ length: 30 }, (_, i) => message(`group${i}@example.org`));
    await store.insertNew(mails);
    // What the send path wrote before: outcomes without a rendered email.
    await Promise.all(mails.slice(0, 15).map((m) => timeline.recordAttempt(m, 1, { event: 'sent' })));
    const eventsBefore = count('message_events.insertMany');
    expect(eventsBefore).toBeLessThan(15); // grouped
    expect(count('message_contents.insertMany')).toBe(0);
    commands.length = 0;
    await Promise.all(mails.slice(15).map((m, i) => timeline.recordAttempt(m, 1, { event: 'sent', content: rendered(`n${i}`) })));
    mongoose.set('debug', false);
    expect(count('message_contents.insertMany')).toBeGreaterThan(0);
    expect(count('message_contents.insertMany')).toBeLessThan(15); // grouped
    expect(count('message_events.insertMany')).toBeLessThan(15);
    expect(commands.filter((c) => !c.endsWith('.insertMany'))).toEqual([]); // no read, no update
    expect((await getContent(mails[29]!)).body.content.text).toBe('Hello n14');
  });

  it('costs the whole send path (trigger → stored, listed, delivered, outcome recorded) one command more for a lone mail, and a few group commits under load', async () => {
    let keep = false;
    const deliverer = {
      deliver: (m: MessageDoc): Promise<Outcome> =>
        Promise.resolve({ event: 'sent', smtp: { code: 250, response: 'OK' }, ...(keep ? { content: rendered(m.email) } : {}) }),
    } as unknown as Deliverer;
    const suppressions = new Suppressions(db, (email) => `hash of ${email}`);
    await suppressions.init();
    const rollups = new StatusRollups(db, 'test-instance');
    const handler = emailTriggerHandler(
      new TriggerDelivery({ store, suppressions, retries, deliverer, timeline, lists, rollups, scheduled: noScheduledSends }),
      new SendPathPriority({ whileSendingPerSecond: 50 }),
      new SendPathPriority({ whileSendingPerSecond: 50 }),
    );
    let t = 0;
    const trigger = (): EmailTriggerCommand => ({
      messageId: `msg_${(++t).toString(16).padStart(32, 'a')}`,
      projectId: '0000000000000000000000a7',
      emailId: 'e1',
      emailKey: 'welcome',
      templateId: 't1',
      templateVersion: 1,
      user: { email: `path${t}@example.org` },
      data: {},
      acceptedAt: new Date().toISOString(),
    });
    const commands: string[] = [];
    mongoose.set('debug', (collection: string, method: string) => commands.push(`${collection}.${method}`));
    const measure = async (triggers: EmailTriggerCommand[]) => {
      commands.length = 0;
      expect(await handler.handleBatch!(triggers.map((data) => ({ data, ctx: {} as never })))).toEqual([]);
      const count = (prefix: string) => commands.filter((c) => c.startsWith(prefix)).length;
      return { all: commands.length, outcomes: count('message_events.insertMany'), contents: count('message_contents.') };
    };
    const many = (k: number) => Array.from({ length: k }, trigger);

    await measure(many(1)); // warm-up: the first trigger of a project creates its lists
    const loneBefore = await measure(many(1));
    const batchBefore = await measure(many(20));
    keep = true;
    const loneAfter = await measure(many(1));
    const batchAfter = await measure(many(20));
    mongoose.set('debug', false);

    expect([loneBefore.contents, batchBefore.contents]).toEqual([0, 0]);
    expect(loneAfter).toEqual({ ...loneBefore, all: loneBefore.all + 1, contents: 1 });
    // Twenty mails: their contents grouped as their outcomes are, in group commits of their own.
    expect(batchAfter.contents).toBeGreaterThan(0);
    expect(batchAfter.contents).toBeLessThan(20);
    expect(batchAfter.outcomes).toBeLessThan(20);
  });

  it('goes with its message when retention purges it, and stays with a message inside the window', async () => {
    // A project of its own: a list is trimmed from its oldest entry on, in the order listed.
    const aged = '0000000000000000000000f6';
    const old = await send(message('old@example.org', new Date(Date.now() - 50 * 86_400_000), aged), rendered('Old'));
    const fresh = await send(message('fresh@example.org', new Date(), aged), rendered('Fresh'));
    const retention = new MessageRetention({
      store,
      lists,
      attachments: new AttachmentStore(db),
      schedule,
      logger,
      retentionDays: 45,
      intervalMs: 3_600_000,
    });
    expect(await retention.purge()).toMatchObject({ messages: 1 });
    expect(await store.content(old._id)).toBeNull();
    expect((await store.content(fresh._id))?.text).toBe('Hello Fresh');
  });

  it("goes with the person's messages when they are erased, and another person's stays", async () => {
    const suppressions = new Suppressions(db, (email) => `hash of ${email}`);
    const done = new ErasuresDone(db);
    await Promise.all([suppressions.init(), done.init()]);
    const erasure = new MailerErasure({ store, lists, suppressions, retries, schedule, done, attachments: new AttachmentStore(db) });
    const eve = await send(message('eve@example.org'), rendered('Eve'));
    const dan = await send(message('dan@example.org'), rendered('Dan'));
    const result = await erasure.erase({
      erasureId: 'era_content1',
      projectId: project,
      id: null,
      email: 'eve@example.org',
      userId: null,
      before: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(result).toMatchObject({ messages: 1 });
    expect(await store.content(eve._id)).toBeNull();
    expect((await getContent(eve)).status).toBe(404);
    expect((await store.content(dan._id))?.subject).toBe('Welcome Dan');
  });
});
