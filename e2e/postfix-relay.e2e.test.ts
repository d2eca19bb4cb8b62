import { call, freePort, startSmtpSink, waitFor, type SmtpSink } from '@postbus/testing';
import { loopbackNet, rcptReply, startPostfix, type PrivatePostfix } from './postfix';
import { createClientAndProject, createSendableEmail, startSystem, type DemoClient, type RunningSystem } from './system';
import { startReceiver } from './webhook-receiver';

const SENDER_DOMAIN = 'mail.postfix-relay.example';
const RETURN_PATH_DOMAIN = `pb-bounces.${SENDER_DOMAIN}`;
const DESTINATION_DOMAIN = 'dest.postfix-relay.example';
const DESTINATION_MX = `mx.${DESTINATION_DOMAIN}`;
/** INBOUND_MX_HOST: the host the sender domain's return-path MX record names. */
const INBOUND_MX = 'mx.postbus-inbound.example';
const RELAY_HOSTNAME = 'relay.postfix-relay.test';
const RECIPIENT = `gone@${DESTINATION_DOMAIN}`;

/** The servers' own loopback addresses: Postfix resolves names to them and connects to them. */
const net = loopbackNet();
const ADDRESS = { dns: `${net}.53`, destinationMx: `${net}.25`, inboundMx: `${net}.26` };

/**
 * Issue 33: a real MTA between Postbus and the recipient's MX. Postbus relays through Debian's
 * Postfix (a private instance, e2e/postfix.ts); Postfix looks up the recipient domain's MX in the
 * test's DNS server and delivers there, to the SMTP sink, whose fault switch refuses the mailbox
 * with 550 5.1.1. Postfix writes its own DSN and mails it to the envelope sender, the message's
 * signed return path at pb-bounces.<sender domain>, whose MX — the record the gateway asks the
 * client to publish, published in the same DNS server — is the inbound service. The message ends
 * `bounced`, the address is suppressed and message.bounced goes out.
 *
 * Every name Postfix delivers to is resolved through DNS (MX, then A); only the port is set
 * (smtp_tcp_port): both MXes listen on the same unprivileged port, on loopback addresses of their
 * own, so the test needs no port 25 and no other run's servers collide with it.
 */
describe('a hard bounce written by Postfix, the relay', () => {
  let system: RunningSystem | undefined;
  let destination: SmtpSink | undefined;
  let postfix: PrivatePostfix | undefined;
  let client: DemoClient;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  const inProject = (method: string, path: string, json?: unknown) =>
    call(system!.gatewayUrl, method, `/v1/projects/${client.projectId}${path}`, { auth: client.auth, ...(json ? { json } : {}) });

  beforeAll(async () => {
    if (process.getuid?.() !== 0)
      throw new Error(`this test runs a private Postfix, and 'postfix start' needs root: run it as root (CI runs as root)`);
    const relayPort = await freePort();
    system = await startSystem(
      {
        SMTP_URL: `smtp://127.0.0.1:${relayPort}`,
        INBOUND_SMTP_HOST: ADDRESS.inboundMx,
        INBOUND_MX_HOST: INBOUND_MX,
        INBOUND_HOSTNAME: INBOUND_MX,
      },
      // resolv.conf names a nameserver without a port: the system's DNS server listens on 53.
      { inbound: true, dns: { host: ADDRESS.dns, port: 53 } },
    );
    const mxPort = system.inbound!.smtpPort;
    destination = await startSmtpSink({ SMTP_HOST: ADDRESS.destinationMx, SMTP_PORT: String(mxPort) });
    system.dns.publish(DESTINATION_DOMAIN, 'MX', [`10 ${DESTINATION_MX}`]);
    system.dns.publish(DESTINATION_MX, 'A', [ADDRESS.destinationMx]);
    system.dns.publish(INBOUND_MX, 'A', [ADDRESS.inboundMx]);
    postfix = await startPostfix({
      hostname: RELAY_HOSTNAME,
      smtpd: { host: '127.0.0.1', port: relayPort },
      nameserver: ADDRESS.dns,
      mxPort,
    });

    client = await createClientAndProject(system);
    // Publishes the records the gateway asks for, the return-path domain's MX (10 INBOUND_MX) among them.
    await createSendableEmail(system, client, { domain: SENDER_DOMAIN });
    receiver = await startReceiver();
    const hook = await call(system.gatewayUrl, 'POST', '/v1/webhooks', {
      auth: client.auth,
      json: { url: receiver.url, events: ['message.bounced'] },
    });
    expect(hook.status).toBe(201);
    // The destination MX refuses the mailbox, as a mailbox provider does for an address that is gone.
    await destination.client.setFault({ code: 550, message: `5.1.1 <${RECIPIENT}>: Recipient address rejected: User unknown` });
  }, 120_000);

  afterAll(async () => {
    await postfix?.stop();
    await receiver?.close();
    await destination?.process.stop();
    await system?.stop();
  });

  const message = (id: string, what: string, done: (m: Record<string, unknown>) => boolean) =>
    waitFor(
      async () => {
        const res = await inProject('GET', `/messages/${id}`);
        return res.status === 200 && done(res.body) ? res.body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, what },
    );
  const timelineOf = (m: Record<string, unknown>) => m['timeline'] as Array<{ event: string; reason?: string }>;

  it('the 550 at the MX comes back as Postfix’s DSN: bounced (reported by Postfix), suppressed as hard_bounce, message.bounced', async () => {
    // The inbound MX learns its return-path domains from the catalog; until then it refuses them
    // with 550, and a refused DSN is dropped by Postfix for good. Asked directly, with no mail sent.
    await waitFor(async () => (await rcptReply(ADDRESS.inboundMx, system!.inbound!.smtpPort, `probe@${RETURN_PATH_DOMAIN}`)) === 250, {
      timeoutMs: 30_000,
      intervalMs: 500,
      what: `the inbound MX to take mail for ${RETURN_PATH_DOMAIN}`,
    });

    const res = await inProject('POST', '/emails/welcome/send', { user: { email: RECIPIENT, name: 'Gone' }, data: {} });
    expect(res.status).toBe(200);
    const id = res.body.message_id as string;

    const bounced = await message(id, 'the message bounced', (m) => m['status'] === 'bounced').catch(async (error: Error) => {
      throw new Error(`${error.message}\nPostfix's log:\n${await postfix!.log()}`, { cause: error });
    });
    const events = timelineOf(bounced).map((e) => e.event);
    // Postfix took it (sent), then its report came back.
    expect(events.indexOf('sent')).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('bounced')).toBeGreaterThan(events.indexOf('sent'));
    const reason = timelineOf(bounced).find((e) => e.event === 'bounced')?.reason;
    expect(reason).toMatch(/^hard bounce \(failed 5\.1\.1\): smtp; 550 5\.1\.1 /);
    expect(reason).toMatch(new RegExp(`; reported by ${RELAY_HOSTNAME.replace(/\./g, '\\.')}$`));

    // Postfix's log: the message went to the MX of the recipient's domain and was refused there,
    // and the DSN went to the MX of the return-path domain, each found in DNS.
    const log = await waitFor(
      async () => {
        const text = await postfix!.log();
        return /status=sent/.test(text) ? text : undefined;
      },
      { timeoutMs: 10_000, what: "the DSN's delivery in Postfix's log" },
    );
    const port = system!.inbound!.smtpPort;
    const escape = (s: string) => s.replace(/[.[\]]/g, (c) => `\\${c}`);
    expect(log).toMatch(new RegExp(`from=<b\\.[0-9a-f]{32}\\.[a-z2-7]{20}@${escape(RETURN_PATH_DOMAIN)}>`));
    expect(log).toMatch(
      new RegExp(`to=<${escape(RECIPIENT)}>, relay=${escape(`${DESTINATION_MX}[${ADDRESS.destinationMx}]:${port}`)}, .*status=bounced`),
    );
    expect(log).toMatch(
      new RegExp(
        `to=<b\\.[0-9a-f]{32}\\.[a-z2-7]{20}@${escape(RETURN_PATH_DOMAIN)}>, relay=${escape(`${INBOUND_MX}[${ADDRESS.inboundMx}]:${port}`)}, .*status=sent`,
      ),
    );
    // Refused at RCPT: the destination kept nothing.
    expect(await destination!.client.count()).toBe(0);

    const suppression = await waitFor(
      async () => {
        const list = await inProject('GET', `/suppressions?email=${encodeURIComponent(RECIPIENT)}`);
        return (list.body.data as Array<Record<string, unknown>> | undefined)?.[0];
      },
      { timeoutMs: 30_000, what: 'the address on the suppression list' },
    );
    expect(suppression).toMatchObject({ email: RECIPIENT, reason: 'hard_bounce', message_id: id });

    const next = await inProject('POST', '/emails/welcome/send', { user: { email: RECIPIENT }, data: {} });
    expect(next.status).toBe(200);
    const suppressed = await message(next.body.message_id as string, 'the next message suppressed', (m) => m['status'] === 'suppressed');
    expect(timelineOf(suppressed).find((e) => e.event === 'suppressed')?.reason).toBe('hard_bounce');

    const hook = await waitFor(() => receiver!.received.find((r) => JSON.parse(r.body).type === 'message.bounced'), {
      timeoutMs: 30_000,
      what: 'the message.bounced webhook',
    });
    expect(JSON.parse(hook.body).data).toMatchObject({ message_id: id, event: 'bounced' });
  }, 180_000);
});
