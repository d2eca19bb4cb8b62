import { call, waitFor } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, startSystem, type DemoClient, type RunningSystem } from './system';

const DOMAIN = 'mail.accepted-read.example';

/**
 * A message id from a 200 reads at once (issue 46): while the mailer is stopped (a backlog it has
 * not reached, a deploy), a read of the id answers `accepted`, with the recipient, the email and when
 * it was accepted; once the mailer has recorded and sent it, the same read shows its timeline.
 */
describe('a message reads as accepted before the mailer has recorded it', () => {
  let system: RunningSystem;
  let client: DemoClient;

  beforeAll(async () => {
    system = await startSystem({ LOG_LEVEL: 'warn' });
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: DOMAIN });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  const api = (method: string, path: string, json?: unknown, auth = client.auth) =>
    call(system.gatewayUrl, method, `/v1/projects/${client.projectId}${path}`, { auth, ...(json !== undefined ? { json } : {}) });

  it('a send’s and a batch item’s ids read as accepted straight after their 200 while the mailer is stopped, then as sent', async () => {
    await system.services.mailer.stop();
    const sent = await api('POST', '/emails/welcome/send', {
      user: { email: 'Ann@Example.org', name: 'Ann' },
      data: {},
      tags: ['receipt'],
    });
    expect(sent.status).toBe(200);
    const read = await api('GET', `/messages/${sent.body.message_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: sent.body.message_id,
      status: 'accepted',
      email: 'ann@example.org',
      email_key: 'welcome',
      tags: ['receipt'],
      timeline: [],
    });
    expect(Date.now() - Date.parse(read.body.accepted_at)).toBeLessThan(30_000);

    const batch = await api('POST', '/emails/batch', { messages: [{ email_key: 'welcome', user: { email: 'bob@example.org' } }] });
    expect(batch.status).toBe(200);
    const itemId = batch.body.data[0].message_id as string;
    expect((await api('GET', `/messages/${itemId}`)).body).toMatchObject({ id: itemId, status: 'accepted', email: 'bob@example.org' });

    // Another client's key reads none of them: to it, an id it cannot have, asked while the mailer is away.
    const other = await createClientAndProject(system);
    const theirs = await call(system.gatewayUrl, 'GET', `/v1/projects/${other.projectId}/messages/${sent.body.message_id}`, {
      auth: other.auth,
    });
    expect(theirs.status).toBe(503);
    expect(theirs.text).not.toContain('ann@example.org');

    // An id never accepted is still unknown, not accepted, while the mailer is away (it cannot be asked).
    const unknown = await api('GET', '/messages/msg_00000000000000000000000000000000');
    expect(unknown.status).toBe(503);

    await system.restart('mailer');
    for (const id of [sent.body.message_id as string, itemId]) {
      await system.sink.client.waitForMessageId(`${id}@${DOMAIN}`, 60_000);
      const after = await waitFor(
        async () => {
          const res = await api('GET', `/messages/${id}`);
          return res.body.status === 'sent' ? res.body : undefined;
        },
        { timeoutMs: 30_000, what: `${id} sent` },
      );
      expect(after.timeline.map((e: { event: string }) => e.event)).toEqual(['queued', 'sent']);
      expect(after.accepted_at).toBeDefined();
    }
  }, 180_000);
});
