import { connectDb, onRequestPath, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import type { AcceptedMessage } from '../src/domain/accepted-messages';
import { AcceptedMessageRepository } from '../src/model/accepted-message.repository';

const HOURS = 60 * 60 * 1000;

describe('the accepted messages on the real MongoDB-wire server', () => {
  let db: Connection;
  let now = new Date('2026-12-03T12:00:00.000Z');
  let repository: AcceptedMessageRepository;

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('accepted').replace(/-/g, '_') });
    repository = new AcceptedMessageRepository(db, () => now);
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  const accepted = (id: string, acceptedAt: Date, projectId = 'p1'): AcceptedMessage => ({
    id,
    projectId,
    emailKey: 'welcome',
    email: `${id}@example.org`,
    acceptedAt,
  });

  const collections = async () =>
    (await db.db!.listCollections({}, { nameOnly: true }).toArray())
      .map((c) => c.name)
      .filter((name) => name.startsWith('accepted_messages_'))
      .sort();

  it('records many sends together, reads each by _id in its project only (QUERY_AUDIT strict), and a repeated record is no error', async () => {
    const records = Array.from({ length: 50 }, (_, n) => accepted(`msg_${n}`, now));
    await Promise.all(records.map((r) => repository.record([r])));
    await repository.record([records[7]!]); // a retry with the same Idempotency-Key names the same message
    await onRequestPath('strict', async () => {
      expect(await repository.find('p1', 'msg_7')).toEqual(records[7]);
      expect(await repository.find('p2', 'msg_7')).toBeNull();
      expect(await repository.find('p1', 'msg_unknown')).toBeNull();
    });
  });

  it('keeps the records of the last 12 to 24 hours, one collection per 12 hours, and drops older ones whole', async () => {
    // now is 12:00 UTC: this period began at 12:00, the last at 00:00.
    await repository.record([accepted('msg_morning', new Date(now.getTime() - 6 * HOURS))]);
    await repository.record([accepted('msg_yesterday', new Date(now.getTime() - 18 * HOURS))]);
    expect(await repository.find('p1', 'msg_morning')).not.toBeNull();
    expect(await collections()).toEqual([
      'accepted_messages_20261202_12',
      'accepted_messages_20261203_00',
      'accepted_messages_20261203_12',
    ]);

    expect(await repository.dropOldPeriods()).toBe(1);
    expect(await collections()).toEqual(['accepted_messages_20261203_00', 'accepted_messages_20261203_12']);
    expect(await repository.find('p1', 'msg_yesterday')).toBeNull();
    expect(await repository.find('p1', 'msg_morning')).not.toBeNull();

    // Twelve hours on, the morning's records are a period too old: gone; the noon's still read.
    now = new Date(now.getTime() + 12 * HOURS);
    expect(await repository.dropOldPeriods()).toBe(1);
    expect(await repository.find('p1', 'msg_morning')).toBeNull();
    expect(await repository.find('p1', 'msg_7')).not.toBeNull();
  });
});
