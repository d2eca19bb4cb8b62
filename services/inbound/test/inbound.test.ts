import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { Bus, busOptions } from '@postbus/bus';
import { connectDb, type Connection } from '@postbus/db';
import { loadConfig } from '@postbus/config';
import { catalogKey, Topics } from '@postbus/contracts';
import { ReturnPathTokens } from '@postbus/crypto';
import { createLogger } from '@postbus/logger';
import { inProcessEnv, recordTopics, shutDown, type TopicRecorder, uniqueDbName, uniqueName, waitFor } from '@postbus/testing';
import { start, type InboundService } from '../src/app';
import { InboundConfig } from '../src/config';

const secret = 'an-inbound-service-test-secret-of-32-chars-or-more';
const tokens = new ReturnPathTokens(secret);
const fixture = (name: string) => readFileSync(join(__dirname, '../fixtures', name));

describe('inbound service: the MX of the return-path domains, end to end on Kafka and the database', () => {
  const namespace = uniqueName('t');
  const logger = createLogger({ service: 'inbound-test', level: 'error' });
  const domainId = 'dddddddddddddddddddddddd';
  const messageId = 'msg_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
  let service: InboundService;
  let bus: Bus;
  let feedback: TopicRecorder;
  let db: Connection;
  const dbName = uniqueDbName('inbound');
  /** What the service recorded of the mail it read (the test reads the whole small collection). */
  const receivedRecords = () => db.collection('received_mail').find({}).toArray();

  const send = (to: string, raw: Buffer | string) =>
    nodemailer
      .createTransport({ host: '127.0.0.1', port: service.smtpPort, secure: false, ignoreTLS: true })
      .sendMail({ envelope: { from: '', to }, raw });
  const publishDomain = (
    domain: string,
    revision: number,
    { id = domainId, clientId = 'cl_test', status = 'verified' }: { id?: string; clientId?: string; status?: 'pending' | 'verified' } = {},
  ) =>
    bus.publisher.publish(Topics.Catalog, 'catalog.domain', catalogKey('domain', id), {
      id,
      clientId,
      revision,
      kind: 'sender',
      domain,
      status,
      dkim: null,
    });
  /** Waits until the service has stored this revision of a sender domain (its own record, read by _id). */
  const stored = (id: string, revision: number) =>
    waitFor(
      async () =>
        ((await db.collection<{ _id: string; revision?: number }>('return_path_domains').findOne({ _id: `id:${id}` }))?.revision ?? 0) >=
        revision,
      {
        what: `sender domain ${id} at revision ${revision}`,
      },
    );
  /** Mail the MX dropped unstored for carrying no token of ours, as its metrics count it. */
  const droppedCount = async () => {
    const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
    return Number(/^postbus_inbound_mail_dropped_total\{[^}]*reason="no_token"[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0);
  };
  const accepted = (to: string) =>
    send(to, 'Subject: probe\r\n\r\nx\r\n').then(
      () => 250,
      (e: { responseCode?: number }) => e.responseCode,
    );

  beforeAll(async () => {
    const env = inProcessEnv(namespace, { INBOUND_SMTP_PORT: '0', INBOUND_DB_NAME: dbName, TRACKING_SECRET: secret });
    const config = loadConfig(InboundConfig, env);
    service = await start({ config, logger });
    bus = new Bus({ ...busOptions(config), service: 'test', logger });
    await bus.publisher.connect();
    feedback = await recordTopics(namespace, [Topics.Feedback]);
    db = await connectDb({ url: config.MONGO_URL, dbName });
  });

  afterAll(() => shutDown(db, feedback, bus, service));

  it('refuses every domain until the catalog names it, then takes mail for its return-path domain', async () => {
    await expect(send('x@pb-bounces.sender.test', 'Subject: x\r\n\r\nx\r\n')).rejects.toMatchObject({ responseCode: 550 });
    await publishDomain('Sender.test', 1);
    await waitFor(
      () =>
        send('x@pb-bounces.sender.test', 'Subject: probe\r\n\r\nx\r\n').then(
          () => true,
          () => false,
        ),
      { what: 'the return-path domain accepted' },
    );
    await expect(send('x@sender.test', 'Subject: x\r\n\r\nx\r\n')).rejects.toMatchObject({ responseCode: 550 });
    await expect(send('x@pb-bounces.other.test', 'Subject: x\r\n\r\nx\r\n')).rejects.toMatchObject({ responseCode: 550 });
  });

  it('only a verified sender domain opens its return-path domain, and another client adding, verifying and deleting the same name leaves it open', async () => {
    const other = 'eeeeeeeeeeeeeeeeeeeeeeee';
    await publishDomain('pending.test', 1, { id: 'ffffffffffffffffffffffff', status: 'pending' });
    await stored('ffffffffffffffffffffffff', 1);
    expect(await accepted('x@pb-bounces.pending.test')).toBe(550);

    await publishDomain('sender.test', 10, { id: other, clientId: 'cl_other', status: 'pending' });
    await stored(other, 10);
    expect(await accepted('x@pb-bounces.sender.test')).toBe(250);
    await publishDomain('sender.test', 11, { id: other, clientId: 'cl_other' });
    await stored(other, 11);
    await bus.publisher.publish(Topics.Catalog, 'catalog.deleted', catalogKey('domain', other), {
      kind: 'domain',
      id: other,
      clientId: 'cl_other',
      revision: 12,
    });
    await stored(other, 12);
    expect(await accepted('x@pb-bounces.sender.test')).toBe(250);
  });

  it('a Postfix bounce to a signed return path becomes a hard bounce of its message on the feedback topic', async () => {
    const to = `${tokens.localPart({ purpose: 'bounce', messageId })}@pb-bounces.sender.test`;
    expect((await send(to, fixture('postfix/failed-550-user-unknown.eml'))).response).toMatch(/^250 /);
    const [bounce] = await waitFor(() => feedback.ofType('feedback.bounce').length > 0 && feedback.ofType('feedback.bounce'), {
      what: 'feedback.bounce',
    });
    expect(bounce!.key).toBe(messageId);
    expect(bounce!.value).toMatchObject({ messageId, class: 'hard', status: '5.1.1', reportingMta: 'relay.postfix.test' });
  });

  it('a forged return path is taken (it is our domain) but stored nowhere: counted as dropped, no feedback, no record', async () => {
    const forged = `b.${messageId.slice(4)}.aaaaaaaaaaaaaaaaaaaa@pb-bounces.sender.test`;
    const droppedBefore = await droppedCount();
    expect((await send(forged, fixture('exim/failed-550-user-unknown.eml'))).response).toMatch(/^250 /);
    // Dropped before the 250: nothing of it is on the bus, so nothing of it is read later.
    expect(await droppedCount()).toBe(droppedBefore + 1);
    // A report whose token verifies, sent after it, is read and recorded; the forged one never is.
    const human = `${tokens.localPart({ purpose: 'bounce', messageId })}@pb-bounces.sender.test`;
    await send(human, fixture('other/human-reply.eml'));
    const records = await waitFor(
      async () => {
        const all = await receivedRecords();
        return all.some((r) => r['report'] === 'unclassified') && all;
      },
      { what: 'the human reply recorded' },
    );
    expect(records.filter((r) => r['report'] === 'delivery_status' && (r['messageIds'] as string[]).length === 0)).toEqual([]);
    expect(feedback.ofType('feedback.bounce')).toHaveLength(1);
  });

  it('a mail to a signed unsubscribe address unsubscribes the recipient of its message', async () => {
    await send(`${tokens.localPart({ purpose: 'unsubscribe', messageId })}@pb-bounces.sender.test`, 'Subject: unsubscribe\r\n\r\n\r\n');
    const [unsubscribe] = await waitFor(
      () => feedback.ofType('feedback.unsubscribe').length > 0 && feedback.ofType('feedback.unsubscribe'),
      {
        what: 'feedback.unsubscribe',
      },
    );
    expect(unsubscribe!.value).toMatchObject({ messageId });
  });

  it('a deleted domain is refused again', async () => {
    await bus.publisher.publish(Topics.Catalog, 'catalog.deleted', catalogKey('domain', domainId), {
      kind: 'domain',
      id: domainId,
      clientId: 'cl_test',
      revision: 2,
    });
    await waitFor(
      () =>
        send('x@pb-bounces.sender.test', 'Subject: x\r\n\r\nx\r\n').then(
          () => false,
          (e: { responseCode?: number }) => e.responseCode === 550,
        ),
      {
        timeoutMs: 15_000,
        what: 'the deleted domain refused',
      },
    );
  });
});
