/** @postbus-system shared */
import { ReturnPathTokens } from '@postbus/crypto';
import { call, waitFor } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';

/** Issue 13 item 2: a client sends only as its own verified domain, and bounces come back to that domain. */
describe('sender identity through the public API', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let templateId: string;

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    ({ templateId } = await createSendableEmail(system, client));
  });

  const inProject = (method: string, path: string, json?: unknown) =>
    call(system.gatewayUrl, method, `/v1/projects/${client.projectId}${path}`, {
      auth: client.auth,
      ...(json !== undefined ? { json } : {}),
    });
  const send = async (key: string) => {
    const res = await inProject('POST', `/emails/${key}/send`, { user: { email: 'erin@example.org' } });
    expect(res.status).toBe(200);
    return res.body.message_id as string;
  };
  const finalMessage = (id: string) =>
    waitFor(
      async () => {
        const res = await inProject('GET', `/messages/${id}`);
        return res.status === 200 && !['accepted', 'queued'].includes(res.body.status as string) ? res.body : undefined;
      },
      { timeoutMs: 20_000, what: `an outcome for ${id}` },
    );

  it('13.2 mail goes out From the project address with the envelope sender (Return-Path) a signed token naming the message at pb-bounces.<sender domain>', async () => {
    const id = await send('welcome');
    const arrived = await system.sink.client.waitForMessageId(`${id}@mail.e2e.example`);
    const mail = await system.sink.client.get(arrived.ID);
    expect(mail.From?.Address).toBe('hello@mail.e2e.example');
    const [localPart, domain] = String(mail.ReturnPath).split('@');
    expect(domain).toBe('pb-bounces.mail.e2e.example');
    expect(new ReturnPathTokens(system.env['TRACKING_SECRET']!).verify(localPart!)).toEqual({ purpose: 'bounce', messageId: id });
  });

  it('13.2 the mailer checks the sender again at send time: an address left on a domain the project no longer uses fails, nothing is sent', async () => {
    // Valid when made: an email of its own address on the project's domain.
    const created = await inProject('POST', '/emails', {
      key: 'legacy',
      name: 'Legacy',
      template_id: templateId,
      from_email: 'ceo@mail.e2e.example',
    });
    expect(created.status).toBe(201);
    // Then the project moves to another verified domain (with an address there); the email keeps its old address.
    await createSendableEmail(system, client, { domain: 'other.e2e.example', key: 'other' });

    const id = await send('legacy');
    const message = await finalMessage(id);
    expect(message.status).toBe('failed');
    expect(JSON.stringify(message.timeline)).toContain("not on the project's sender domain other.e2e.example");
    expect((await system.sink.client.search(`message-id:${id}@mail.e2e.example`)).messages).toHaveLength(0);
    expect((await system.sink.client.search(`message-id:${id}@other.e2e.example`)).messages).toHaveLength(0);
  });
});
