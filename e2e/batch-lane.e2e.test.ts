/** @postbus-system shared */
import { waitFor } from '@postbus/testing';
import { projectCall, withSystemAndClient } from './project-api';
import type { DemoClient, RunningSystem } from './system';

const DOMAIN = 'mail.batch-lane.example';
const BATCH_ITEMS = 500;
/** The batch's recipients, apart from every other address of the test (the sink searches them by it). */
const BATCH_RECIPIENTS = 'bulk.batch-lane.example';

/**
 * A batch send's messages travel on a lane of their own (issue 45 item 7): a single send accepted
 * after a 500-message batch overtakes it, where it used to queue behind the batch's messages in
 * its partition; and a suppression accepted before a batch is applied before the batch's mail goes.
 */
describe("a batch send's own lane", () => {
  let system: RunningSystem;
  let client: DemoClient;

  withSystemAndClient({ shared: true, sendable: { domain: DOMAIN } }, (started) => ({ system, client } = started));

  const api = (method: string, path: string, json?: unknown) => projectCall(system, client, method, path, json);
  const atSink = async (query: string) => (await system.sink.client.search(query, 1)).messages_count;

  it('a single send accepted after a 500-message batch reaches the sink before most of the batch, and the whole batch follows', async () => {
    const batch = await api('POST', '/emails/batch', {
      messages: Array.from({ length: BATCH_ITEMS }, (_, i) => ({
        email_key: 'welcome',
        user: { email: `b${i}@${BATCH_RECIPIENTS}` },
        data: {},
      })),
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data.filter((item: { status: string }) => item.status === 'accepted')).toHaveLength(BATCH_ITEMS);
    const single = await api('POST', '/emails/welcome/send', { user: { email: 'single@lane.example' }, data: {} });
    expect(single.status).toBe(200);

    await system.sink.client.waitForMessageId(`${single.body.message_id}@${DOMAIN}`, 60_000);
    const before = await atSink(`to:${BATCH_RECIPIENTS}`);
    console.info(`the single send reached the sink after ${before} of the batch's ${BATCH_ITEMS} messages`);
    expect(before).toBeLessThan(BATCH_ITEMS / 2);
    await waitFor(async () => (await atSink(`to:${BATCH_RECIPIENTS}`)) === BATCH_ITEMS, {
      timeoutMs: 180_000,
      intervalMs: 1_000,
      what: 'every message of the batch at the sink',
    });
  }, 240_000);

  it('an address suppressed before a batch gets none of its mail; the others do', async () => {
    const suppressed = await api('POST', '/suppressions', { email: 'kept-out@lane.example', reason: 'manual' });
    expect(suppressed.status).toBeLessThan(300);
    const batch = await api('POST', '/emails/batch', {
      messages: ['kept-out@lane.example', 'let-in@lane.example'].map((email) => ({ email_key: 'welcome', user: { email }, data: {} })),
    });
    expect(batch.status).toBe(200);
    const [out, inside] = batch.body.data as Array<{ message_id: string }>;
    const statusOf = async (id: string) => ((await api('GET', `/messages/${id}`)).body as { status?: string }).status;
    await waitFor(async () => (await statusOf(inside!.message_id)) === 'sent', { timeoutMs: 60_000, what: 'the other address sent' });
    await waitFor(async () => (await statusOf(out!.message_id)) === 'suppressed', { timeoutMs: 60_000, what: 'the suppressed address' });
    expect(await atSink('to:kept-out@lane.example')).toBe(0);
  }, 150_000);
});
