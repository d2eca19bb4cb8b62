#!/usr/bin/env node
// npm run test:containers: the operator's path, run for real on podman.
//   1. deploy/containers/podman.sh images: installs podman and podman-compose if needed, builds
//      (or keeps, when their inputs are unchanged) the base, Node, stand-in and service images;
//   2. brings up docker-compose.yml itself with compose.podman.yml (the images that cannot be
//      pulled here and the host ports swapped), under its own project name;
//   3. starts Kafka, the database and the sink first, then the services, each time waiting for
//      the containers' own health checks (the services': /readyz): podman runs none by itself
//      without systemd, and podman-compose cannot wait for them on podman 4.3;
//   4. checks the cluster and a send end to end: the three brokers (one with
//      POSTBUS_TEST_BROKERS=1, which adds docker-compose.single-broker.yml), the topics' replication,
//      a client created with the CLI in a container, a trigger accepted, the mail at the sink,
//      the message's timeline, a mail sent with SMTP submission (STARTTLS and AUTH on the
//      published port), the admin panel and the status page;
//   5. tears everything down (volumes too), and ends with "N passed, N failed".
// POSTBUS_KEEP_STACK=1 leaves the stack running for a look (`bash deploy/containers/podman.sh
// compose -p postbus-ctest … down -v` removes it). Heavy commands run under nice/ionice.
/* global fetch, AbortSignal, process -- a plain Node script, run without a build */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  createStack,
  dkimResult,
  expectStatus,
  gatewayUrl,
  here,
  http,
  receiverPort,
  root,
  sinkUrl,
  statusUrl,
  submissionPort,
  until,
  verifyWebhook,
} from './stack.mjs';

const requireHere = createRequire(join(root, 'package.json'));

const project = process.env.POSTBUS_TEST_PROJECT ?? 'postbus-ctest';
// POSTBUS_TEST_BROKERS=1 runs the single-broker variant (docker-compose.single-broker.yml on top).
const single = process.env.POSTBUS_TEST_BROKERS === '1';
const stack = createStack({ project, single, tag: 'test:containers' });
const replicas = stack.brokers.length;
const minInsync = Math.min(2, replicas);
// ---------------------------------------------------------------------------------------------
async function main() {
  stack.say('building images (deploy/containers/podman.sh images)');
  const tImages = Date.now();
  await stack.stream('bash', [join(here, 'podman.sh'), 'images']);
  const imagesSeconds = Math.round((Date.now() - tImages) / 1000);

  stack.say(`starting the stack (project ${project})`);
  let upSeconds;
  try {
    ({ upSeconds } = await stack.up({
      infraCheck: 'Kafka, the database and the mail sink pass their health checks',
      servicesCheck: "every service passes its health check (the service's own /readyz)",
    }));

    await stack.check(`the Kafka cluster has ${replicas} broker(s), each healthy (a KRaft quorum of ${replicas})`, async () => {
      // Each broker, probed again: Compose calls a broker unhealthy only after 12 failed probes in
      // a row, and one probe (a JVM of its own) can run past its timeout on a loaded machine.
      await stack.waitHealthy(stack.brokers, 120_000);
      const out = stack.run(
        'podman',
        [
          'exec',
          '-e',
          'KAFKA_HEAP_OPTS=-Xmx64m',
          stack.container('kafka-1'),
          '/opt/kafka/bin/kafka-metadata-quorum.sh',
          '--bootstrap-server',
          'localhost:9092',
          'describe',
          '--status',
        ],
        { quiet: true },
      ).stdout;
      const voters = out.split('\n').find((l) => l.startsWith('CurrentVoters:')) ?? '';
      const count = (voters.match(/"id":\s*\d+/g) ?? []).length;
      if (count !== replicas) throw new Error(`quorum voters: ${voters || out}`);
      return `voters ${count}`;
    });

    await stack.check(`the services' topics have ${replicas} replica(s) and min.insync.replicas=${minInsync}`, async () => {
      const out = stack.run(
        'podman',
        [
          'exec',
          '-e',
          'KAFKA_HEAP_OPTS=-Xmx128m',
          stack.container('kafka-1'),
          '/opt/kafka/bin/kafka-topics.sh',
          '--bootstrap-server',
          'localhost:9092',
          '--describe',
          '--exclude-internal',
        ],
        { quiet: true },
      ).stdout;
      const topics = out.split('\n').filter((l) => l.startsWith('Topic:') && l.includes('PartitionCount'));
      if (topics.length === 0) throw new Error('no topics');
      const wrong = topics.filter(
        (l) =>
          !new RegExp(`ReplicationFactor:\\s*${replicas}\\b`).test(l) || !new RegExp(`min\\.insync\\.replicas=${minInsync}\\b`).test(l),
      );
      if (wrong.length > 0) throw new Error(`${wrong.length} of ${topics.length} topics: ${wrong.slice(0, 3).join(' | ')}`);
      return `${topics.length} topics`;
    });

    let client;
    await stack.check('a client is created with the CLI in a container (compose run gateway … clients create)', async () => {
      client = stack.createClient('Container test');
      return client.client_id;
    });

    let projectId;
    let records = [];
    let dns;
    const domainName = 'ctest.postbus.test';
    const verified = await stack.check("a sender domain is verified against the test's DNS server", async () => {
      if (!client) throw new Error('no client');
      const auth = [client.client_id, client.api_key];
      dns = await stack.startDns();
      ({ records, projectId } = await stack.setupSender(auth, dns, domainName, 'Container test'));
      return `${records.length} records`;
    });

    let receiver;
    let endpoint;
    await stack.check('a webhook endpoint is created for a receiver on the compose network', async () => {
      receiver = await stack.startReceiver();
      endpoint = expectStatus(
        await http(gatewayUrl, 'POST', '/v1/webhooks', {
          auth: [client.client_id, client.api_key],
          json: { url: `http://gateway:${receiverPort}/hooks/postbus`, events: ['message.sent'] },
        }),
        201,
        'POST webhooks',
      );
      return endpoint.id;
    });

    let accepted;
    const to = `ada+${Date.now()}@example.com`;
    const sent = await stack.check('a trigger is accepted (template, email, send)', async () => {
      if (!verified) throw new Error('no verified sender domain');
      const auth = [client.client_id, client.api_key];
      const p = `/v1/projects/${projectId}`;
      await stack.createWelcomeEmail(auth, projectId);
      const send = await http(gatewayUrl, 'POST', `${p}/emails/welcome/send`, {
        auth,
        json: { user: { email: to, name: 'Ada' }, data: { code: '4711' } },
      });
      if (send.status !== 200 && send.status !== 202) throw new Error(`send: ${send.status} ${send.text}`);
      accepted = send.body;
      return `${send.status} ${accepted?.message_id ?? ''}`;
    });

    let mail;
    await stack.check('the mail reaches the sink (the mailer → SMTP → services/smtp-sink in place of Mailpit)', async () => {
      if (!sent) throw new Error('nothing was sent');
      const found = await until('the mail at the sink', 90_000, async () => {
        const r = await http(sinkUrl, 'GET', `/api/v1/search?query=${encodeURIComponent(`to:${to}`)}`);
        return r.status === 200 && r.body?.messages?.length > 0 ? r.body.messages[0] : undefined;
      });
      const message = expectStatus(await http(sinkUrl, 'GET', `/api/v1/message/${found.ID}`), 200, 'GET message');
      if (!/Welcome, Ada/.test(message.Subject)) throw new Error(`subject: ${message.Subject}`);
      if (!/4711/.test(message.HTML ?? '')) throw new Error('the rendered body lacks the data');
      mail = { id: found.ID, from: message.From?.Address };
      return `"${message.Subject}" from ${message.From?.Address}`;
    });

    await stack.check(`the mail carries a valid DKIM signature of ${domainName}`, async () => {
      if (!mail) throw new Error('no mail');
      const raw = await (await fetch(`${sinkUrl}/api/v1/message/${mail.id}/raw`)).text();
      const results = await dkimResult(raw, records);
      if (results === undefined) throw new Error('mailauth is not installed (npm ci)');
      const pass = results.find((r) => r.status?.result === 'pass' && r.signingDomain === domainName);
      if (!pass) throw new Error(`DKIM: ${JSON.stringify(results.map((r) => [r.signingDomain, r.status])).slice(0, 500)}`);
      return `selector ${pass.selector}`;
    });

    await stack.check('the message reads back as sent, with its timeline (by recipient and by id)', async () => {
      if (!sent) throw new Error('nothing was sent');
      const auth = [client.client_id, client.api_key];
      const listed = await until('message sent', 60_000, async () => {
        const r = await http(gatewayUrl, 'GET', `/v1/projects/${projectId}/messages?email=${encodeURIComponent(to)}`, { auth });
        const item = r.body?.data?.[0];
        return item && item.status === 'sent' ? item : undefined;
      });
      if (listed.id !== accepted?.message_id) throw new Error(`listed ${listed.id}, accepted ${accepted?.message_id}`);
      const one = expectStatus(
        await http(gatewayUrl, 'GET', `/v1/projects/${projectId}/messages/${listed.id}`, { auth }),
        200,
        'GET message',
      );
      const events = (one.timeline ?? []).map((e) => e.event);
      if (!events.includes('sent')) throw new Error(`timeline: ${events.join(', ')}`);
      return `${one.status}; timeline ${events.join(' → ')}`;
    });

    await stack.check("the recipient's profile reads back (registered by the users service from the trigger)", async () => {
      if (!sent) throw new Error('nothing was sent');
      const auth = [client.client_id, client.api_key];
      const profile = await until('the profile', 60_000, async () => {
        const r = await http(gatewayUrl, 'GET', `/v1/projects/${projectId}/users?email=${encodeURIComponent(to)}`, { auth });
        return r.status === 200 ? r.body : undefined;
      });
      if (profile.email !== to || profile.name !== 'Ada') throw new Error(`profile: ${JSON.stringify(profile).slice(0, 300)}`);
      return profile.id;
    });

    await stack.check('a signed message.sent webhook reaches the receiver and verifies (Standard Webhooks)', async () => {
      if (!sent || !endpoint) throw new Error('no message or no endpoint');
      const delivery = await until('the webhook at the receiver', 90_000, async () =>
        receiver.deliveries().find((d) => JSON.parse(d.body).data?.message_id === accepted?.message_id),
      );
      const event = verifyWebhook(delivery, endpoint.secret);
      if (event.type !== 'message.sent') throw new Error(`type ${event.type}`);
      return `${event.type}, webhook-id ${delivery.headers['webhook-id']}`;
    });
    receiver?.close();

    await stack.check(
      'a mail sent with SMTP submission (STARTTLS, AUTH: the project id and an API key) reaches the sink, read back with source smtp',
      async () => {
        if (!verified) throw new Error('no verified sender domain');
        const auth = [client.client_id, client.api_key];
        const smtpTo = `grace+${Date.now()}@example.com`;
        const transport = requireHere('nodemailer').createTransport({
          host: '127.0.0.1',
          port: submissionPort,
          requireTLS: true,
          auth: { user: projectId, pass: client.api_key },
          // The test's self-signed certificate (stack.mjs).
          tls: { rejectUnauthorized: false },
        });
        let info;
        try {
          info = await transport.sendMail({
            from: `Container test <hello@${domainName}>`,
            to: smtpTo,
            subject: 'Sent through SMTP submission',
            text: 'Hello over SMTP',
            html: '<p>Hello over SMTP</p>',
          });
        } finally {
          transport.close();
        }
        const messageId = /^250 2\.0\.0 (\S+) queued/.exec(info.response)?.[1];
        if (!messageId) throw new Error(`reply: ${info.response}`);
        await until('the SMTP mail at the sink', 90_000, async () => {
          const r = await http(sinkUrl, 'GET', `/api/v1/search?query=${encodeURIComponent(`to:${smtpTo}`)}`);
          return r.status === 200 && r.body?.messages?.length > 0;
        });
        const read = expectStatus(
          await http(gatewayUrl, 'GET', `/v1/projects/${projectId}/messages/${messageId}`, { auth }),
          200,
          'GET message',
        );
        if (read.source !== 'smtp') throw new Error(`source: ${read.source}`);
        return info.response;
      },
    );

    await stack.check('the admin panel answers at /admin/', async () => {
      const res = await fetch(`${gatewayUrl}/admin/`, { signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      if (res.status !== 200 || !/<html/i.test(text)) throw new Error(`${res.status} ${text.slice(0, 200)}`);
    });

    await stack.check('the status page answers', async () => {
      const res = await fetch(`${statusUrl}/`, { signal: AbortSignal.timeout(10_000) });
      if (res.status !== 200) throw new Error(`${res.status}`);
    });
    dns?.close();
  } finally {
    if (stack.results.some((r) => !r.ok)) for (const s of ['mailer', 'gateway']) stack.showLogs(s);
    stack.down();
  }
  stack.say(`images ${imagesSeconds} s, stack ready ${upSeconds ?? '-'} s, total ${stack.elapsed()}`);
  stack.finish();
}

main().catch(stack.crashed);
