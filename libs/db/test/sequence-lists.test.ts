import { connectDb, recordQueries, SequenceLists, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';

const at = (minute: number): Date => new Date(Date.UTC(2026, 10, 1, 0, minute));

describe('SequenceLists against the MongoDB-wire server', () => {
  const dbName = uniqueName('seqlists');
  let a: Connection;
  let b: Connection;
  let listsA: SequenceLists;
  let listsB: SequenceLists;

  beforeAll(async () => {
    a = await connectDb({ url: defaultMongoUrl(), dbName });
    b = await connectDb({ url: defaultMongoUrl(), dbName });
    listsA = new SequenceLists(a, 'lists');
    listsB = new SequenceLists(b, 'lists');
    await listsA.init();
  });

  afterAll(async () => {
    await a.dropDatabase();
    await Promise.all([a.close(), b.close()]);
  });

  it('numbers entries densely when two connections append to one list at once', async () => {
    const rounds = Array.from({ length: 10 }, (_, r) => [
      listsA.append(Array.from({ length: 5 }, (_, k) => ({ list: 'p1', at: at(r), value: `a${r}-${k}` }))),
      listsB.append(Array.from({ length: 5 }, (_, k) => ({ list: 'p1', at: at(r), value: `b${r}-${k}` }))),
    ]);
    const seqs = (await Promise.all(rounds.flat())).flat();
    expect(new Set(seqs).size).toBe(100);
    expect(Math.min(...seqs)).toBe(1);
    expect(Math.max(...seqs)).toBe(100);
    // A third instance, knowing nothing, finds the head by probing.
    expect(await new SequenceLists(a, 'lists').head('p1')).toBe(100);
  });

  it('pages newest first with a cursor, and by time range', async () => {
    const values = Array.from({ length: 30 }, (_, i) => ({ list: 'p2', at: at(i), value: `m${i}` }));
    for (const v of values) await listsA.append([v]);
    const first = await listsB.page('p2', { limit: 12 });
    expect(first.entries.map((e) => e.value)).toEqual(
      values
        .slice(18)
        .reverse()
        .map((v) => v.value),
    );
    const second = await listsB.page('p2', { limit: 12, beforeSeq: first.next! });
    expect(second.entries.map((e) => e.value)).toEqual(
      values
        .slice(6, 18)
        .reverse()
        .map((v) => v.value),
    );
    const last = await listsB.page('p2', { limit: 12, beforeSeq: second.next! });
    expect(last.entries).toHaveLength(6);
    expect(last.next).toBeNull();
    const window = await listsB.page('p2', { limit: 100, from: at(10), to: at(14) });
    expect(window.entries.map((e) => e.value)).toEqual(['m14', 'm13', 'm12', 'm11', 'm10']);
  });

  it('guesses a first page from the entries this process appended, without a read, and no further than what it holds', async () => {
    const writer = new SequenceLists(a, 'lists');
    for (let i = 0; i < 5; i++) await writer.append([{ list: 'p9', at: at(i), value: `n${i}` }]);
    const recorded = recordQueries(['lists']);
    try {
      expect(writer.newestKnown('p9', 3).map((e) => e.value)).toEqual(['n4', 'n3', 'n2']);
      expect(writer.newestKnown('p9', 10).map((e) => e.value)).toEqual(['n4', 'n3', 'n2', 'n1', 'n0']);
      expect(recorded.queries).toHaveLength(0);
    } finally {
      recorded.stop();
    }
    // Another instance appended since: the guess is stale, and page() is what tells.
    await listsB.append([{ list: 'p9', at: at(5), value: 'n5' }]);
    expect(writer.newestKnown('p9', 1).map((e) => e.value)).toEqual(['n4']);
    expect((await writer.page('p9', { limit: 1 })).entries.map((e) => e.value)).toEqual(['n5']);
    // A list this process never wrote nor read: no guess.
    expect(new SequenceLists(a, 'lists').newestKnown('p9', 3)).toEqual([]);
  });

  it('reads a page of a list it is appending to without chasing its own appends, read by read', async () => {
    const writer = new SequenceLists(a, 'lists');
    await writer.append([{ list: 'p10', at: at(0), value: 'first' }]);
    // The search's first probe sees ten entries this process is appending, which land (and which it
    // learns it made) while that probe is answered: its appends during a page read, under load.
    type Probe = (list: string, seq: number) => Promise<boolean>;
    const probe = (Reflect.get(writer, 'exists') as Probe).bind(writer);
    let landed = false;
    jest.spyOn(writer as unknown as { exists: Probe }, 'exists').mockImplementation(async (list, seq) => {
      if (!landed) {
        landed = true;
        await writer.append(Array.from({ length: 10 }, (_, k) => ({ list: 'p10', at: at(1), value: `n${k}` })));
      }
      return probe(list, seq);
    });
    const recorded = recordQueries(['lists']);
    try {
      expect((await writer.page('p10', { limit: 1 })).entries.map((e) => e.value)).toEqual(['n9']);
      // One read found 2 taken, a number this process claimed: the search ends at its newest append
      // (the append reads the list's tail: this collection numbers from it).
      const reads = recorded.queries.filter((q) => q.method.startsWith('find')).map((q) => String(q.filter?.['_id']));
      expect(reads.filter((id) => !id.endsWith('~tail'))).toEqual(['p10~2']);
    } finally {
      recorded.stop();
    }
    expect(await new SequenceLists(b, 'lists').head('p10')).toBe(11);
    // Another instance's entries above it are searched for as before.
    jest.restoreAllMocks();
    await listsB.append([12, 13, 14].map((k) => ({ list: 'p10', at: at(2), value: `b${k}` })));
    expect((await writer.page('p10', { limit: 1 })).entries.map((e) => e.value)).toEqual(['b14']);
  });

  it('trims to a cutoff in resumable chunks, then every registered list at once', async () => {
    await listsA.append(Array.from({ length: 450 }, (_, i) => ({ list: 'p3', at: at(i), value: `x${i}` })));
    const removed: string[] = [];
    expect(await listsA.trim('p3', at(300), (chunk) => Promise.resolve(void removed.push(...chunk)))).toBe(300);
    expect(removed).toHaveLength(300);
    expect(await listsA.tail('p3')).toBe(301);
    expect((await listsB.page('p3', { limit: 1000 })).entries).toHaveLength(150);
    // Appending after a trim keeps numbering where it was.
    expect(await listsB.append([{ list: 'p3', at: at(500), value: 'late' }])).toEqual([451]);

    const result = await listsA.trimAll(at(100_000));
    expect(result.lists).toBeGreaterThanOrEqual(3);
    for (const list of ['p1', 'p2', 'p3']) expect((await listsB.page(list, { limit: 10 })).entries).toEqual([]);
    // An emptied list registers again with its next entry, and the next sweep finds it.
    await listsB.append([{ list: 'p2', at: at(200_000), value: 'again' }]);
    expect(await listsA.trimAll(at(300_000))).toEqual({ lists: 1, removed: 1 });
  });

  it("an instance whose cached head is older than another instance's trim appends above the new tail, visible and registered", async () => {
    await listsB.append(Array.from({ length: 5 }, (_, i) => ({ list: 'p4', at: at(400_000 + i), value: `y${i}` })));
    expect(await listsB.head('p4')).toBe(5); // B caches the head
    await listsA.append(Array.from({ length: 3 }, (_, i) => ({ list: 'p4', at: at(400_005 + i), value: `z${i}` }))); // 6-8
    await listsA.trim('p4'); // A empties the list: its tail moves to 9, entries 1-8 are gone
    expect(await listsB.append([{ list: 'p4', at: at(400_010), value: 'after' }])).toEqual([9]);
    expect((await listsA.page('p4', { limit: 10 })).entries.map((e) => e.value)).toEqual(['after']);
    expect(await listsA.trimAll(at(500_000))).toMatchObject({ removed: expect.any(Number) as number });
    expect((await listsB.page('p4', { limit: 10 })).entries).toEqual([]);
  });

  it('an instance whose remembered head is stale finds the head when its guessed numbers are taken, leaving no gap', async () => {
    expect(await listsA.append([{ list: 'p6', at: at(600_000), value: 'a1' }])).toEqual([1]); // A remembers head 1
    await listsB.append(Array.from({ length: 4 }, (_, i) => ({ list: 'p6', at: at(600_001 + i), value: `b${i}` }))); // 2-5
    // A guesses 2 and 3: both taken, so it searches for the head and claims 6 and 7.
    expect(await listsA.append([0, 1].map((i) => ({ list: 'p6', at: at(600_010 + i), value: `a${i + 2}` })))).toEqual([6, 7]);
    // A list this process has never seen is numbered from its tail: a new one starts at 1.
    expect(await new SequenceLists(b, 'lists').append([{ list: 'p7', at: at(700_000), value: 'first' }])).toEqual([1]);
    const page = await listsB.page('p6', { limit: 10 });
    expect(page.entries.map((e) => e.seq)).toEqual([7, 6, 5, 4, 3, 2, 1]);
  });

  it('in a collection that began under the first-slot rule, a new list costs no read, and a trimmed one is never numbered below its tail', async () => {
    const fresh = new SequenceLists(a, 'anchored_lists');
    await fresh.init(); // an empty collection: marked as keeping every list's first slot
    const recorded = recordQueries(['anchored_lists']);
    try {
      expect(await fresh.append([1, 2].map((i) => ({ list: 'new', at: at(800_000 + i), value: `n${i}` })))).toEqual([1, 2]);
      await fresh.tail('probe'); // a read the recorder must see, so that seeing none above means something
      const reads = recorded.queries.filter((q) => q.method.startsWith('find')).map((q) => String(q.filter?.['_id']));
      expect(reads).toEqual(['probe~tail']);
    } finally {
      recorded.stop();
    }
    await fresh.append([3, 4, 5].map((i) => ({ list: 'gone', at: at(800_000 + i), value: `g${i}` })));
    await fresh.trim('gone'); // tail 4; the first slot stays, blanked
    const cold = new SequenceLists(b, 'anchored_lists');
    await cold.init();
    // The cold instance guesses 1, finds it taken, and finds the tail and head instead.
    expect(await cold.append([{ list: 'gone', at: at(800_010), value: 'back' }])).toEqual([4]);
    expect((await fresh.page('gone', { limit: 10 })).entries.map((e) => e.value)).toEqual(['back']);
    // A collection written before the rule (a list trimmed then lost its first slot) keeps reading tails.
    await a.collection('legacy_lists').insertMany([{ _id: 'old~tail' as never, s: 3 }]);
    const legacy = new SequenceLists(b, 'legacy_lists');
    await legacy.init();
    expect(await legacy.append([{ list: 'old', at: at(800_020), value: 'after' }])).toEqual([3]);
  });

  it('a collection without a registry writes one document per entry, and refuses to be walked whole', async () => {
    const people = new SequenceLists(a, 'unregistered_lists', { registry: false });
    await people.init();
    await people.append(['p:1', 'p:2', 'p:3'].map((list, i) => ({ list, at: at(900_000 + i), value: `d${i}` })));
    const ids = (
      await a
        .collection('unregistered_lists')
        .find({}, { projection: { _id: 1 } })
        .toArray()
    ).map((d) => String(d._id));
    expect(ids.sort()).toEqual(['p:1~1', 'p:2~1', 'p:3~1', '~anchored']);
    // Each list is still read and trimmed on its own.
    expect((await people.page('p:2', { limit: 5 })).entries.map((e) => e.value)).toEqual(['d1']);
    expect(await people.trim('p:2')).toBe(1);
    await expect(people.trimAll(new Date())).rejects.toThrow(/registry/);
    // The same lists in a registered collection add one registry entry each.
    const registered = new SequenceLists(a, 'registered_lists');
    await registered.init();
    await registered.append(['p:1', 'p:2'].map((list, i) => ({ list, at: at(900_000 + i), value: `d${i}` })));
    expect(await a.collection('registered_lists').countDocuments({ _id: { $regex: '^~lists~' } } as never)).toBe(2);
  });

  it('appends a group once per key, checking only groups that may have been seen', async () => {
    const group = { key: 'msg-1', items: [{ list: 'p4', at: at(1), value: 'msg-1' }] };
    await listsA.appendOnce([{ ...group, known: 'new' }]);
    await listsA.appendOnce([{ ...group, known: 'maybe-seen' }]);
    expect((await listsA.page('p4', { limit: 10 })).entries.map((e) => e.value)).toEqual(['msg-1']);
  });
});
