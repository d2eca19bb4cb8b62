import { call, sleep, waitFor } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, startSystem, type DemoClient, type RunningSystem } from './system';

const TRIGGERS = 500;
const CONCURRENCY = 10;

/** None lost, no needless copies: the mailer dies twice (SIGKILL) while triggers keep coming. */
describe('the mailer killed mid-stream', () => {
  let system: RunningSystem;
  let client: DemoClient;

  beforeAll(async () => {
    system = await startSystem({ LOG_LEVEL: 'warn' });
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: 'mail.crash.example' });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it(`turns ${TRIGGERS} accepted triggers into exactly ${TRIGGERS} distinct emails`, async () => {
    const accepted: string[] = [];
    let next = 0;
    const sender = async () => {
      while (next < TRIGGERS) {
        const n = next++;
        const res = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/welcome/send`, {
          auth: client.auth,
          json: { user: { email: `crash-${n}@example.org`, name: `User ${n}` }, data: { code: String(n) } },
        });
        if (res.status !== 200) throw new Error(`trigger ${n} answered ${res.status}: ${res.text}`);
        accepted.push(res.body.message_id as string);
      }
    };
    const sending = Promise.all(Array.from({ length: CONCURRENCY }, sender));

    // Two kills, each once mail is flowing: the sink must already hold some of it.
    const kills: Array<{ from: number; dead: number }> = [];
    for (const threshold of [80, 250]) {
      await waitFor(async () => (await system.sink.client.count()) >= threshold, {
        timeoutMs: 60_000,
        intervalMs: 20,
        what: `${threshold} mails`,
      });
      const from = Date.now();
      await system.services.mailer.kill();
      kills.push({ from, dead: Date.now() });
      await sleep(200);
      await system.restart('mailer');
    }
    await sending;
    expect(accepted).toHaveLength(TRIGGERS);

    const ids = new Set(accepted.map((id) => `${id}@mail.crash.example`));
    const received = await waitFor(
      async () => {
        const all = await allReceived();
        return new Set(all.map((m) => m.id)).size >= TRIGGERS ? all : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: `${TRIGGERS} distinct Message-IDs at the sink` },
    );
    const distinct = new Set(received.map((m) => m.id));
    const copies = received.length - distinct.size;
    console.log(
      `${TRIGGERS} triggers, 2 SIGKILLs: ${distinct.size} distinct Message-IDs, ${copies} copies from a kill between a 250 and its record`,
    );
    expect(distinct.size).toBe(TRIGGERS);
    expect([...distinct].every((id) => ids.has(id))).toBe(true);
    // A copy needs a kill inside the window between a relay's 250 and the status write (one group
    // commit): between any two copies of a message lies a kill (the first copy arrived before the
    // killed process was dead, the next after the kill began). How many fall in that window depends
    // on the machine's load (7 on a quiet run, 65 on a loaded one), so the test checks the cause.
    const arrivals = new Map<string, number[]>();
    for (const m of received) arrivals.set(m.id, [...(arrivals.get(m.id) ?? []), m.at]);
    const copiesWithoutKill = [...arrivals.values()]
      .map((times) => times.sort((a, b) => a - b))
      .filter((times) => times.some((at, i) => i > 0 && !kills.some((kill) => times[i - 1]! <= kill.dead && kill.from <= at)));
    expect({ copiesWithoutKill, kills }).toEqual({ copiesWithoutKill: [], kills });

    // Every message ends sent, with one sent entry however many copies went out.
    await waitFor(
      async () => {
        const sent = await call(system.gatewayUrl, 'GET', `/v1/projects/${client.projectId}/messages?status=sent&limit=100`, {
          auth: client.auth,
        });
        return sent.status === 200 && sent.body.data.length === 100;
      },
      { timeoutMs: 30_000, what: 'messages read as sent' },
    );
  }, 300_000);

  /** Every Message-ID the sink holds with when it arrived, copies included. */
  async function allReceived(): Promise<Array<{ id: string; at: number }>> {
    const received: Array<{ id: string; at: number }> = [];
    for (let start = 0; ; start += 1000) {
      const page = await system.sink.client.list(1000, start);
      received.push(...page.messages.map((m) => ({ id: m.MessageID, at: Date.parse(m.Created) })));
      if (page.messages.length < 1000) return received;
    }
  }
});
