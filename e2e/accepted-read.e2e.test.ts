import { call, waitFor } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, startSystem, type DemoClient, type RunningSystem } from './system';

const DOMAIN = 'mail.accepted-read.example';

/**
 * A message id from a 200 reads at once (issue 46 item 1): with the mailer stopped, a send's and a
 * batch item's ids read straight after their 200 as `accepted`, with the recipient, the email key
 * and accepted_at, from their triggers on the bus; another client's key cannot read them; once the
 * mailer is back and has recorded them, the reads show their real timelines.
 */
describe('a message read straight after its 200, with the mailer stopped', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let stranger: DemoClient;

  beforeAll(async () => {
    system = await startSystem();
    [client, stranger] = await Promise.all([createClientAndProject(system), createClientAndProject(system)]);
    await createSendableEmail(system, client, { domain: DOMAIN, key: 'receipt' });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  const read = (who: DemoClient, projectId: string, id: string) =>
    call(system.gatewayUrl, 'GET', `/v1/projects/${projectId}/messages/${id}`, { auth: who.auth });

  it('answers accepted with the recipient, email key and accepted_at, then the real timeline once the mailer has it', async () => {
    await system.services.mailer.stop();

    const sent = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/receipt/send`, {
      auth: client.auth,
      json: { user: { email: 'Ann@Accepted.example', user_id: 'u-ann' }, data: {}, tags: ['receipt'] },
    });
    expect(sent.status).toBe(200);
    const id = sent.body.message_id as string;
    const started = performance.now();
    const single = await read(client, client.projectId, id);
    const singleMs = performance.now() - started;
    expect(single.status).toBe(200);
    expect(single.body).toMatchObject({
      id,
      project_id: client.projectId,
      status: 'accepted',
      email: 'ann@accepted.example',
      user_id: 'u-ann',
      email_key: 'receipt',
      tags: ['receipt'],
      timeline: [],
    });
    expect(Math.abs(Date.parse(single.body.accepted_at as string) - Date.now())).toBeLessThan(30_000);

    const batch = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/batch`, {
      auth: client.auth,
      json: { messages: ['one', 'two'].map((n) => ({ email_key: 'receipt', user: { email: `${n}@accepted.example` }, data: {} })) },
    });
    expect(batch.status).toBe(200);
    const second = (batch.body.data as { message_id: string }[])[1]!.message_id;
    const item = await read(client, client.projectId, second);
    expect(item.status).toBe(200);
    expect(item.body).toMatchObject({ id: second, status: 'accepted', email: 'two@accepted.example', email_key: 'receipt' });

    // Another client's key finds nothing: on the owner's project, a 404; on its own, the 503 of any
    // id not found on the bus while the mailer is away (it cannot tell it is not the mailer's).
    expect((await read(stranger, client.projectId, id)).status).toBe(404);
    const strangers = await read(stranger, stranger.projectId, id);
    expect(strangers.status).toBe(503);
    expect(strangers.text).not.toContain('accepted.example');
    const neverAccepted = `msg_${Date.now().toString(16).padStart(12, '0')}${'0'.repeat(20)}`;
    expect((await read(client, client.projectId, neverAccepted)).status).toBe(503);
    console.info(`accepted read with the mailer stopped: ${Math.round(singleMs)} ms`);

    await system.restart('mailer');
    const recorded = await waitFor(
      async () => {
        const res = await read(client, client.projectId, id);
        return res.status === 200 && res.body.status !== 'accepted' ? res.body : undefined;
      },
      { timeoutMs: 60_000, what: 'the read from the mailer' },
    );
    expect(recorded).toMatchObject({ id, email: 'ann@accepted.example', email_key: 'receipt' });
    expect((recorded.timeline as { event: string }[])[0]!.event).toBe('queued');
    expect(recorded.accepted_at).toBe(single.body.accepted_at);
    expect((await read(client, client.projectId, neverAccepted)).status).toBe(404);
    expect((await read(stranger, stranger.projectId, id)).status).toBe(404);
  }, 180_000);
});
