#!/usr/bin/env node
// npm run test:chaos: the compose stack under steady load while its parts are killed.
//   1. builds the images and brings up docker-compose.yml as test:containers does, with
//      compose.chaos.yml on top: a second instance of the mailer, the users service and the
//      webhook dispatcher (mailer-2, users-2, webhook-dispatcher-2);
//   2. sets up a client (the CLI in a container), a verified sender domain, a project, a `welcome`
//      email and a webhook endpoint for message.sent to a receiver in the gateway's container;
//   3. sends triggers at a steady rate (retrying 5xx and timeouts with the same Idempotency-Key,
//      as the SDKs do) and user updates (PATCH by email, one in flight per user), and meanwhile,
//      at spaced times: SIGKILLs a Kafka broker and starts it again, restarts the database,
//      SIGKILLs the mailer, the users service and the webhook dispatcher one at a time (their
//      second instances keep running) and starts each again, makes the relay (the sink) refuse
//      mail with 451 for a while, and takes the webhook receiver away for a while;
//   4. waits for the mail and the webhooks to drain, then counts: one message (read back by id)
//      and one mail (by Message-ID) per accepted trigger, every message.sent webhook delivered and
//      verified, the 5xx answers, the users' last updates, p99 accept latency per phase, and how
//      long each part took to recover from each fault;
//   5. writes .chaos/chaos-report.json and .chaos/chaos-report.md (also printed), tears the stack
//      down and ends with "N passed, N failed".
// Settings (flags or environment; the defaults are issue 31's):
//   --duration=S  CHAOS_DURATION_S   seconds of load (180)
//   --rate=N      CHAOS_RATE         triggers a second (50)
//   --updates=N   CHAOS_UPDATE_RATE  user updates a second (10)
//   --relay-fault=S CHAOS_RELAY_FAULT_S   how long the relay refuses mail (30)
//   --receiver-away=S CHAOS_RECEIVER_AWAY_S how long the webhook receiver is away (60)
//   --down=S      CHAOS_DOWN_S       how long a SIGKILLed container stays down (15)
//   --drain=S     CHAOS_DRAIN_S      how long to wait for mail and webhooks after the load (900)
//   --skip-images CHAOS_SKIP_IMAGES=1  do not run podman.sh images (they are built)
// A short development run: node deploy/containers/chaos.mjs --duration=60 --rate=10 --relay-fault=10 --receiver-away=15
/* global Buffer, console, process, setInterval, clearInterval -- a plain Node script, run without a build */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStack, expectStatus, gatewayUrl, here, http, receiverPort, root, services, sinkUrl, sleep, until } from './stack.mjs';

const flag = (name, envName, fallback) => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const raw = arg ? arg.slice(name.length + 3) : process.env[envName];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} (${envName}) must be a positive number`);
  return value;
};
const durationS = flag('duration', 'CHAOS_DURATION_S', 180);
const rate = flag('rate', 'CHAOS_RATE', 50);
const updateRate = flag('updates', 'CHAOS_UPDATE_RATE', 10);
const relayFaultS = flag('relay-fault', 'CHAOS_RELAY_FAULT_S', 30);
const receiverAwayS = flag('receiver-away', 'CHAOS_RECEIVER_AWAY_S', 60);
const downS = flag('down', 'CHAOS_DOWN_S', 15);
const drainS = flag('drain', 'CHAOS_DRAIN_S', 900);
const skipImages = process.argv.includes('--skip-images') || process.env.CHAOS_SKIP_IMAGES === '1';

const project = process.env.POSTBUS_CHAOS_PROJECT ?? 'postbus-chaos';
const second = ['mailer-2', 'users-2', 'webhook-dispatcher-2'];
// The stack runs at the priority of other builds and tests (nice 10, best-effort I/O), not at the
// image builds' idle priority: its latencies are what this test measures. Containers started
// again during the test get the same priority (they inherit it from `podman start`).
const priority = ['nice', '-n', '10', 'ionice', '-c2', '-n7'];
const stack = createStack({ project, extraFiles: ['deploy/containers/compose.chaos.yml'], tag: 'test:chaos', priority });
const { say, run, stream, container, check, results, showLogs, nodeInGateway, startDns, startReceiver, up, down } = stack;
const outDir = join(root, '.chaos');
const RECIPIENTS = 400;
const TRIGGER_TIMEOUT_MS = 30_000;
const MAX_ATTEMPTS = 5;

/**
 * Standard Webhooks verification as of the delivery's receipt (standardwebhooks' verify() checks
 * the timestamp against the present, and this test reads deliveries minutes after they came):
 * a v1 signature (HMAC-SHA256 of "id.timestamp.body" with the whsec_ secret) and a timestamp within
 * 5 minutes of the receipt.
 */
function verifyAtReceipt(delivery, secret) {
  const h = delivery.headers;
  const key = Buffer.from(String(secret).replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${h['webhook-id']}.${h['webhook-timestamp']}.${delivery.body}`).digest();
  const signed = String(h['webhook-signature'] ?? '')
    .split(' ')
    .some((s) => {
      const [version, signature] = s.split(',');
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
  if (!signed) throw new Error('no valid v1 signature');
  if (Math.abs(delivery.at / 1000 - Number(h['webhook-timestamp'])) > 300) throw new Error('timestamp outside the 5-minute tolerance');
  return JSON.parse(delivery.body);
}

// ---------------------------------------------------------------------------------------------
// Small statistics.
const percentile = (values, p) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const seconds = (ms) => (ms === null || ms === undefined ? null : Math.round(ms / 100) / 10);

/** Runs fn over items with at most `limit` at a time. */
async function pool(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

// ---------------------------------------------------------------------------------------------
/**
 * A monitor in the gateway's container: every second it probes each part (the services' /readyz,
 * the brokers' and the database's ports) and prints a JSON line when one changes state.
 */
async function startMonitor() {
  const targets = {
    'kafka-1': { tcp: ['kafka-1', 9092] },
    'kafka-2': { tcp: ['kafka-2', 9092] },
    'kafka-3': { tcp: ['kafka-3', 9092] },
    mongo: { tcp: ['mongo', 27017] },
    mailpit: { url: 'http://mailpit:8025/readyz' },
    users: { url: 'http://users:8081/readyz' },
    'users-2': { url: 'http://users-2:8081/readyz' },
    mailer: { url: 'http://mailer:8082/readyz' },
    'mailer-2': { url: 'http://mailer-2:8082/readyz' },
    'webhook-dispatcher': { url: 'http://webhook-dispatcher:8083/readyz' },
    'webhook-dispatcher-2': { url: 'http://webhook-dispatcher-2:8083/readyz' },
    payments: { url: 'http://payments:8084/readyz' },
    erasure: { url: 'http://erasure:8085/readyz' },
    inbound: { url: 'http://inbound:8087/readyz' },
    submission: { url: 'http://submission:8088/readyz' },
    gateway: { url: 'http://127.0.0.1:8080/readyz' },
    status: { url: 'http://status:8090/readyz' },
  };
  const script = `
    const net = require('node:net');
    const targets = ${JSON.stringify(targets)};
    const state = {};
    const tcp = ([host, port]) => new Promise((resolve) => {
      const s = net.connect({ host, port, timeout: 2000 });
      const done = (ok) => { s.destroy(); resolve(ok); };
      s.on('connect', () => done(true)); s.on('error', () => done(false)); s.on('timeout', () => done(false));
    });
    const url = (u) => fetch(u, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
    async function round() {
      await Promise.all(Object.entries(targets).map(async ([name, t]) => {
        const ok = await (t.tcp ? tcp(t.tcp) : url(t.url));
        if (state[name] !== ok) { state[name] = ok; console.log(JSON.stringify({ at: Date.now(), target: name, ok })); }
      }));
    }
    round().then(() => { console.log('ready'); setInterval(round, 1000); });
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();`;
  const { child, output } = await nodeInGateway(script, 'the monitor');
  return {
    targets: Object.keys(targets),
    events: () =>
      output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
    close: () => child.stdin.end(),
  };
}

// ---------------------------------------------------------------------------------------------
/** The load: triggers at `rate` a second and user updates at `updateRate`, for `durationMs`. */
function startLoad({ auth, projectId, durationMs, t0 }) {
  const triggers = []; // {i, key, email, sentAt, attempts: [{at, ms, status, retryAfter, error}], acceptedAt, messageId}
  const updates = []; // {user, seq, attempts, accepted}
  const attempts = []; // every request: {kind, at, ms, status, retryAfter, error}
  const userSeq = new Map(); // email -> last accepted seq
  const busyUsers = new Set();
  const uncertainUsers = new Set();
  let skipped = 0;
  let inFlight = 0;
  let updateSeq = 0;
  const p = `/v1/projects/${projectId}`;

  async function request(kind, method, path, json, key) {
    const answers = [];
    for (let attempt = 1; ; attempt++) {
      const at = Date.now();
      const record = { kind, at, ms: null, status: null, retryAfter: null, error: null };
      attempts.push(record);
      answers.push(record);
      try {
        const res = await http(gatewayUrl, method, path, {
          auth,
          json,
          headers: { 'idempotency-key': key },
          timeoutMs: TRIGGER_TIMEOUT_MS,
        });
        record.ms = Date.now() - at;
        record.status = res.status;
        record.retryAfter = res.headers.get('retry-after');
        // As the SDKs: 5xx and 429 are retried with the same Idempotency-Key, and so is a 409 saying
        // the first request with the key is still in flight (its answer is then replayed).
        const retriable = res.status >= 500 || res.status === 429 || (res.status === 409 && /in-flight/.test(res.text));
        if (!retriable || attempt >= MAX_ATTEMPTS) return { res, answers: answers.map((a) => a.status ?? a.error) };
        await sleep(Math.min(10_000, Math.max(500, Number(record.retryAfter ?? 1) * 1000)));
      } catch (error) {
        record.ms = Date.now() - at;
        record.error = String(error?.cause?.code ?? error?.name ?? error);
        if (attempt >= MAX_ATTEMPTS) return { res: undefined, answers: answers.map((a) => a.status ?? a.error) };
        await sleep(1000);
      }
    }
  }

  async function trigger(i) {
    const email = `chaos+${i % RECIPIENTS}@example.com`;
    const t = { i, key: `chaos-${randomUUID()}`, email, sentAt: Date.now(), status: null, messageId: null, acceptedAt: null };
    triggers.push(t);
    inFlight++;
    try {
      const { res, answers } = await request(
        'trigger',
        'POST',
        `${p}/emails/welcome/send`,
        { user: { email, name: 'Ada' }, data: { code: String(i) } },
        t.key,
      );
      t.status = res?.status ?? null;
      t.statuses = answers;
      if (res?.status === 200 || res?.status === 202) {
        t.messageId = res.body?.message_id ?? null;
        t.acceptedAt = Date.now();
      }
    } finally {
      inFlight--;
    }
  }

  async function update(i) {
    const known = Math.min(RECIPIENTS, triggers.length);
    if (known === 0) return;
    let email;
    for (let n = 0; n < 5 && !email; n++) {
      const candidate = `chaos+${(i * 7 + n) % known}@example.com`;
      if (!busyUsers.has(candidate)) email = candidate;
    }
    if (!email) return;
    busyUsers.add(email);
    const seq = ++updateSeq;
    const u = { email, seq, status: null };
    updates.push(u);
    try {
      const { res, answers } = await request(
        'update',
        'PATCH',
        `${p}/users/by-email`,
        { email, fields: { chaos_seq: seq, plan: `p${seq % 5}` } },
        `chaos-u-${randomUUID()}`,
      );
      u.status = res?.status ?? null;
      if (res?.status === 200) userSeq.set(email, seq);
      // An attempt without an answer may still be applied, later than a later update: the profile's
      // final value is then unknown, and the user is not checked.
      if (answers.some((a) => typeof a === 'string')) uncertainUsers.add(email);
    } finally {
      busyUsers.delete(email);
    }
  }

  const pending = [];
  const done = (async () => {
    let sentTriggers = 0;
    let sentUpdates = 0;
    for (;;) {
      const now = Date.now() - t0;
      if (now >= durationMs) break;
      const dueTriggers = Math.floor((now / 1000) * rate);
      while (sentTriggers < dueTriggers) {
        if (inFlight > 2000) {
          skipped++;
          sentTriggers++;
          continue;
        }
        pending.push(trigger(sentTriggers++));
      }
      const dueUpdates = Math.floor((now / 1000) * updateRate);
      while (sentUpdates < dueUpdates) pending.push(update(sentUpdates++));
      await sleep(10);
    }
    await Promise.all(pending);
  })();
  return { done, triggers, updates, attempts, userSeq, uncertainUsers, skipped: () => skipped };
}

// ---------------------------------------------------------------------------------------------
const podman = (args, options = {}) =>
  run(priority[0], [...priority.slice(1), 'podman', ...args], { quiet: true, allowFail: true, timeoutMs: 120_000, ...options });
const isRunning = (service) => podman(['inspect', '-f', '{{.State.Running}}', container(service)]).stdout.trim() === 'true';

/**
 * The faults, at fractions of the load's duration. Each `inject` returns when the fault is in
 * place; `lift` (after `holdMs`) takes it away. Times are recorded by the runner.
 */
function faultPlan({ receiver }) {
  const kill = (service) => ({
    kind: 'sigkill',
    target: service,
    holdMs: downS * 1000,
    inject: async () => {
      const r = podman(['kill', '-s', 'KILL', container(service)]);
      if (r.status !== 0) throw new Error(`podman kill ${service}: ${r.stderr}`);
    },
    lift: async (fault) => {
      // The restart policy (unless-stopped) may have started it already.
      fault.runningBeforeStart = isRunning(service);
      const r = podman(['start', container(service)]);
      if (r.status !== 0) throw new Error(`podman start ${service}: ${r.stderr}`);
    },
  });
  return [
    { at: 0.06, name: 'SIGKILL Kafka broker kafka-2, start it again', ...kill('kafka-2') },
    { at: 0.18, name: 'SIGKILL the mailer (mailer-2 runs), start it again', ...kill('mailer') },
    {
      at: 0.3,
      name: `webhook receiver away for ${receiverAwayS} s`,
      kind: 'receiver-away',
      target: 'receiver',
      holdMs: receiverAwayS * 1000,
      background: true,
      inject: async () => {
        receiver.current.close();
        await receiver.current.exited;
      },
      lift: async () => {
        receiver.current = await startReceiver();
        receiver.all.push(receiver.current);
      },
    },
    {
      at: 0.36,
      name: 'restart the database container (podman restart mongo)',
      kind: 'restart',
      target: 'mongo',
      holdMs: 0,
      inject: async () => {
        const r = podman(['restart', '-t', '10', container('mongo')]);
        if (r.status !== 0) throw new Error(`podman restart mongo: ${r.stderr}`);
      },
      lift: async () => {},
    },
    { at: 0.5, name: 'SIGKILL the users service (users-2 runs), start it again', ...kill('users') },
    {
      at: 0.64,
      name: `the relay refuses mail (451) for ${relayFaultS} s`,
      kind: 'relay-fault',
      target: 'mailpit',
      holdMs: relayFaultS * 1000,
      inject: async () => {
        expectStatus(
          await http(sinkUrl, 'PUT', '/api/sink/fault', { json: { code: 451, for_ms: relayFaultS * 1000, stage: 'rcpt' } }),
          200,
          'PUT /api/sink/fault',
        );
      },
      lift: async () => {
        // The fault expires by itself; make sure it is gone.
        await http(sinkUrl, 'DELETE', '/api/sink/fault');
      },
    },
    { at: 0.8, name: 'SIGKILL the webhook dispatcher (webhook-dispatcher-2 runs), start it again', ...kill('webhook-dispatcher') },
  ];
}

async function runFaults(plan, { t0, durationMs }) {
  const background = [];
  for (const fault of plan) {
    const wait = t0 + fault.at * durationMs - Date.now();
    if (wait > 0) await sleep(wait);
    const go = async () => {
      fault.injectedAt = Date.now();
      say(`fault at ${seconds(fault.injectedAt - t0)} s: ${fault.name}`);
      try {
        await fault.inject(fault);
        fault.injectDoneAt = Date.now();
        if (fault.holdMs > 0) await sleep(fault.holdMs);
        await fault.lift(fault);
        fault.liftedAt = Date.now();
        say(`lifted at ${seconds(fault.liftedAt - t0)} s: ${fault.name}`);
      } catch (error) {
        fault.error = error instanceof Error ? error.message : String(error);
        fault.liftedAt = fault.liftedAt ?? Date.now();
        say(`fault failed: ${fault.name}: ${fault.error}`);
      }
    };
    if (fault.background) background.push(go());
    else await go();
  }
  await Promise.all(background);
}

/** For a fault, each part's outage from the monitor's events: when it went down and came back after the injection. */
function recoveryOf(fault, events, targets, nextAt) {
  const out = {};
  for (const target of targets) {
    const mine = events.filter((e) => e.target === target && e.at >= fault.injectedAt - 500);
    const downEvent = mine.find((e) => !e.ok && e.at < nextAt);
    if (!downEvent) continue;
    const upEvent = mine.find((e) => e.ok && e.at > downEvent.at);
    out[target] = {
      down_at_s: seconds(downEvent.at - fault.injectedAt),
      ready_at_s: upEvent ? seconds(upEvent.at - fault.injectedAt) : null,
      after_lift_s: upEvent ? seconds(Math.max(0, upEvent.at - fault.liftedAt)) : null,
      down_for_s: upEvent ? seconds(upEvent.at - downEvent.at) : null,
    };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
/** Every mail at the sink: {messageId (Postbus's id), created}. */
async function sinkMails() {
  const first = expectStatus(await http(sinkUrl, 'GET', '/api/v1/messages?limit=1', { timeoutMs: 60_000 }), 200, 'sink list');
  const total = first.total;
  const mails = [];
  for (let start = 0; start < total; start += 1000) {
    const page = expectStatus(
      await http(sinkUrl, 'GET', `/api/v1/messages?start=${start}&limit=1000`, { timeoutMs: 120_000 }),
      200,
      'sink page',
    );
    for (const m of page.messages) {
      const id = String(m.MessageID ?? '')
        .replace(/^</, '')
        .split('@')[0];
      mails.push({ messageId: id, sinkId: m.ID, created: Date.parse(m.Created) });
    }
  }
  return mails;
}

// ---------------------------------------------------------------------------------------------
async function main() {
  const startedAt = Date.now();
  if (!skipImages) {
    say('building images (deploy/containers/podman.sh images)');
    await stream('bash', [join(here, 'podman.sh'), 'images']);
  }
  say(`starting the stack (project ${project}, with ${second.join(', ')})`);
  const report = {
    started_at: new Date(startedAt).toISOString(),
    settings: {
      duration_s: durationS,
      triggers_per_s: rate,
      updates_per_s: updateRate,
      relay_fault_s: relayFaultS,
      receiver_away_s: receiverAwayS,
      down_s: downS,
      drain_s: drainS,
    },
  };
  let monitor;
  const receiver = { current: undefined, all: [] };
  let dns;
  try {
    const { ready, upSeconds } = await up({
      infraCheck: 'Kafka, the database and the mail sink pass their health checks',
      servicesCheck: `every service and the second instances (${second.join(', ')}) pass their health checks`,
      serviceNames: [...services, ...second],
    });
    report.stack_ready_s = upSeconds;
    if (!ready) throw new Error('the stack did not come up');

    // --- set-up --------------------------------------------------------------------------------
    let auth;
    let projectId;
    let endpoint;
    let warmupId;
    const setUp = await check('set-up: a client (CLI), a verified sender domain, a project, an email, a webhook endpoint', async () => {
      const client = stack.createClient('Chaos test');
      auth = [client.client_id, client.api_key];
      dns = await startDns();
      ({ projectId } = await stack.setupSender(auth, dns, 'chaos.postbus.test', 'Chaos test'));
      await stack.createWelcomeEmail(auth, projectId);
      receiver.current = await startReceiver();
      receiver.all.push(receiver.current);
      endpoint = expectStatus(
        await http(gatewayUrl, 'POST', '/v1/webhooks', {
          auth,
          json: { url: `http://gateway:${receiverPort}/hooks/postbus`, events: ['message.sent'] },
        }),
        201,
        'POST webhooks',
      );
      monitor = await startMonitor();
      return `project ${projectId}`;
    });
    if (!setUp) throw new Error('set-up failed');

    const warm = await check('warm-up: a trigger reaches the sink and its webhook the receiver', async () => {
      const res = await http(gatewayUrl, 'POST', `/v1/projects/${projectId}/emails/welcome/send`, {
        auth,
        json: { user: { email: 'warmup@example.com', name: 'Ada' }, data: { code: 'warm-up' } },
      });
      if (res.status !== 200) throw new Error(`send: ${res.status} ${res.text}`);
      const id = res.body.message_id;
      warmupId = id;
      await until('the warm-up mail', 120_000, async () => (await sinkMails()).some((m) => m.messageId === id));
      await until('the warm-up webhook', 120_000, async () => receiver.current.deliveries().some((d) => d.body.includes(id)));
      return id;
    });
    if (!warm) throw new Error('the pipeline does not work before the faults');
    const baselineEvents = monitor.events().length;

    // --- load and faults ---------------------------------------------------------------------
    const durationMs = durationS * 1000;
    const t0 = Date.now();
    say(`load: ${rate} triggers/s and ${updateRate} user updates/s for ${durationS} s`);
    const load = startLoad({ auth, projectId, durationMs, t0 });
    const plan = faultPlan({ receiver });
    const progress = setInterval(() => {
      const accepted = load.triggers.filter((t) => t.messageId).length;
      say(`  t=${seconds(Date.now() - t0)} s: ${load.triggers.length} triggers sent, ${accepted} accepted, ${load.updates.length} updates`);
    }, 15_000);
    await runFaults(plan, { t0, durationMs });
    await load.done;
    clearInterval(progress);
    const loadEnd = Date.now();
    say(`load done in ${seconds(loadEnd - t0)} s`);

    // --- drain ---------------------------------------------------------------------------------
    const accepted = load.triggers.filter((t) => t.messageId);
    const acceptedIds = new Set(accepted.map((t) => t.messageId));
    const deliveries = () => receiver.all.flatMap((r) => r.deliveries());
    const webhookIds = () => {
      const ids = new Set();
      for (const d of deliveries()) {
        try {
          const id = JSON.parse(d.body).data?.message_id;
          if (id) ids.add(id);
        } catch {
          /* counted as unverified below */
        }
      }
      return ids;
    };
    say(`draining: ${accepted.length} accepted triggers (up to ${drainS} s)`);
    let mails = [];
    const drainStart = Date.now();
    let drained = false;
    while (Date.now() - drainStart < drainS * 1000) {
      const total = (await http(sinkUrl, 'GET', '/api/v1/messages?limit=1').catch(() => undefined))?.body?.total ?? 0;
      const hooks = webhookIds();
      const hooksMissing = accepted.filter((t) => !hooks.has(t.messageId)).length;
      if (total >= accepted.length + 1) {
        mails = await sinkMails();
        const at = new Set(mails.map((m) => m.messageId));
        const missing = accepted.filter((t) => !at.has(t.messageId)).length;
        say(`  drain ${seconds(Date.now() - drainStart)} s: ${missing} mails and ${hooksMissing} webhooks missing`);
        if (missing === 0 && hooksMissing === 0) {
          drained = true;
          break;
        }
      } else say(`  drain ${seconds(Date.now() - drainStart)} s: ${total} mails at the sink, ${hooksMissing} webhooks missing`);
      await sleep(15_000);
    }
    report.drain_s = seconds(Date.now() - drainStart);
    // Late duplicates (a redelivery after a kill) get a moment to show.
    await sleep(15_000);
    mails = await sinkMails();

    // --- counts --------------------------------------------------------------------------------
    const mailCount = new Map();
    const mailAt = new Map();
    for (const m of mails) {
      mailCount.set(m.messageId, (mailCount.get(m.messageId) ?? 0) + 1);
      if (!mailAt.has(m.messageId)) mailAt.set(m.messageId, m.created);
    }
    const lostMails = accepted.filter((t) => !mailCount.has(t.messageId));
    const duplicateMails = accepted.filter((t) => (mailCount.get(t.messageId) ?? 0) > 1);
    // A mail whose id no 200 answer gave: the trigger's code (its index) in the body tells which
    // request it came from. If that request was accepted on a retry, the recipient got two mails.
    const strangers = [...mailCount.keys()].filter((id) => !acceptedIds.has(id) && id !== warmupId);
    const byIndex = new Map(load.triggers.map((t) => [t.i, t]));
    const strangerOrigins = await pool(strangers, 8, async (id) => {
      const ref = mails.find((m) => m.messageId === id);
      const r = await http(sinkUrl, 'GET', `/api/v1/message/${ref.sinkId}`).catch(() => undefined);
      const code = /<b>(\d+)<\/b>/.exec(r?.body?.HTML ?? '')?.[1];
      const t = code === undefined ? undefined : byIndex.get(Number(code));
      return { id, trigger: t?.i ?? null, acceptedAs: t?.messageId ?? null, answers: t ? t.statuses : null };
    });
    const retriedTwice = strangerOrigins.filter((o) => o.acceptedAs);

    // Messages read back by id, and the project's list (a second record for a trigger would show there).
    const readBack = await pool(accepted, 16, async (t) => {
      for (let attempt = 0; attempt < 3; attempt++) {
        const r = await http(gatewayUrl, 'GET', `/v1/projects/${projectId}/messages/${t.messageId}`, { auth }).catch(() => undefined);
        if (r && r.status !== 503 && r.status < 500) return { status: r.status, state: r.body?.status };
        await sleep(1000);
      }
      return { status: null };
    });
    const notReadBack = accepted.filter((_, i) => readBack[i].status !== 200);
    const notSent = accepted.filter((_, i) => readBack[i].status === 200 && readBack[i].state !== 'sent');
    const listed = new Map();
    let cursor;
    for (;;) {
      const r = await http(
        gatewayUrl,
        'GET',
        `/v1/projects/${projectId}/messages?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        {
          auth,
          timeoutMs: 60_000,
        },
      );
      if (r.status !== 200) throw new Error(`list messages: ${r.status} ${r.text.slice(0, 300)}`);
      for (const m of r.body.data) listed.set(m.id, (listed.get(m.id) ?? 0) + 1);
      cursor = r.body.next_cursor;
      if (!cursor) break;
    }
    const listedTwice = [...listed.entries()].filter(([, n]) => n > 1);
    const listedStrangers = [...listed.keys()].filter((id) => !acceptedIds.has(id));

    // Webhooks.
    const all = deliveries();
    let unverified = 0;
    const hookCount = new Map();
    const hookAt = new Map();
    for (const d of all) {
      try {
        const event = verifyAtReceipt(d, endpoint.secret);
        const id = event.data?.message_id;
        if (event.type === 'message.sent' && id) {
          hookCount.set(id, (hookCount.get(id) ?? 0) + 1);
          if (!hookAt.has(id)) hookAt.set(id, d.at ?? null);
        }
      } catch {
        unverified++;
      }
    }
    const hooksMissing = accepted.filter((t) => !hookCount.has(t.messageId));
    const hooksRepeated = accepted.filter((t) => (hookCount.get(t.messageId) ?? 0) > 1).length;

    // Users: the last accepted update of each user is what the profile holds.
    const users = [...load.userSeq.entries()].filter(([email]) => !load.uncertainUsers.has(email));
    const profiles = await pool(users, 8, async ([email, seq]) => {
      const r = await http(gatewayUrl, 'GET', `/v1/projects/${projectId}/users?email=${encodeURIComponent(email)}`, { auth }).catch(
        () => undefined,
      );
      const got = r?.body?.fields?.chaos_seq;
      return { email, want: seq, got, status: r?.status ?? null };
    });
    const staleProfiles = profiles.filter((p) => p.got !== p.want);

    // --- timeline, phases, recoveries ----------------------------------------------------------
    const events = monitor.events();
    const sorted = [...plan].filter((f) => f.injectedAt).sort((a, b) => a.injectedAt - b.injectedAt);
    const db = plan.find((f) => f.target === 'mongo');
    // The database's outage: from the restart until it answers again (the monitor's probe of its
    // port), with 10 s for the services' drivers to reconnect.
    const dbBack = db?.injectedAt
      ? (events.find((e) => e.target === 'mongo' && e.ok && e.at > db.injectedAt)?.at ?? db.liftedAt)
      : undefined;
    const dbWindow = db?.injectedAt ? [db.injectedAt, Math.max(dbBack ?? 0, db.liftedAt ?? 0) + 10_000] : undefined;
    const inDbWindow = (a) => dbWindow && a.at <= dbWindow[1] && a.at + (a.ms ?? 0) >= dbWindow[0];
    const bad5xx = load.attempts.filter((a) => (a.status ?? 0) >= 500 && !(a.status === 503 && a.retryAfter) && !inDbWindow(a));
    const all5xx = load.attempts.filter((a) => (a.status ?? 0) >= 500);
    const noAnswer = load.attempts.filter((a) => a.error);
    const noAnswerOutside = noAnswer.filter((a) => !inDbWindow(a));

    const phases = [{ name: 'baseline (no fault)', from: t0, to: sorted[0]?.injectedAt ?? loadEnd }];
    sorted.forEach((f, i) => phases.push({ name: f.name, from: f.injectedAt, to: sorted[i + 1]?.injectedAt ?? loadEnd }));
    const phaseRows = phases.map((ph) => {
      const inPhase = load.attempts.filter((a) => a.kind === 'trigger' && a.at >= ph.from && a.at < ph.to);
      const ok = inPhase.filter((a) => a.status === 200 || a.status === 202);
      const acceptedIn = accepted.filter((t) => t.sentAt >= ph.from && t.sentAt < ph.to);
      const deliveryMs = acceptedIn.filter((t) => mailAt.has(t.messageId)).map((t) => mailAt.get(t.messageId) - t.acceptedAt);
      const statuses = {};
      for (const a of inPhase) statuses[a.status ?? a.error] = (statuses[a.status ?? a.error] ?? 0) + 1;
      return {
        phase: ph.name,
        from_s: seconds(ph.from - t0),
        to_s: seconds(ph.to - t0),
        requests: inPhase.length,
        statuses,
        p50_accept_ms: percentile(
          ok.map((a) => a.ms),
          50,
        ),
        p99_accept_ms: percentile(
          ok.map((a) => a.ms),
          99,
        ),
        max_accept_ms: ok.length ? Math.max(...ok.map((a) => a.ms)) : null,
        p99_mail_delay_s: seconds(percentile(deliveryMs, 99)),
        max_mail_delay_s: seconds(deliveryMs.length ? Math.max(...deliveryMs) : null),
      };
    });
    const faults = sorted.map((f, i) => ({
      fault: f.name,
      kind: f.kind,
      target: f.target,
      injected_at_s: seconds(f.injectedAt - t0),
      lifted_at_s: seconds(f.liftedAt - t0),
      ...(f.runningBeforeStart !== undefined && { restarted_by_policy_before_start: f.runningBeforeStart }),
      ...(f.error && { error: f.error }),
      recovery: recoveryOf(f, events, monitor.targets, sorted[i + 1]?.injectedAt ?? Infinity),
    }));
    const finalEvents = new Map();
    for (const e of events) finalEvents.set(e.target, e.ok);
    const notReadyAtEnd = [...finalEvents.entries()].filter(([, ok]) => !ok).map(([t]) => t);

    const triggersSent = load.triggers.length;
    // The rate over the sending window (the answers of the last requests may come later).
    const loadS = durationMs / 1000;
    Object.assign(report, {
      load_s: durationS,
      last_answer_s: seconds(loadEnd - t0),
      triggers: {
        sent: triggersSent,
        skipped_client_backlog: load.skipped(),
        accepted: accepted.length,
        not_accepted: triggersSent - accepted.length,
        sent_per_s: Math.round((triggersSent / loadS) * 10) / 10,
        accepted_per_s: Math.round((accepted.length / loadS) * 10) / 10,
      },
      user_updates: {
        sent: load.updates.length,
        accepted: load.updates.filter((u) => u.status === 200).length,
        users_checked: profiles.length,
        users_not_checked_unanswered_update: load.uncertainUsers.size,
        stale_profiles: staleProfiles.length,
        stale_examples: staleProfiles.slice(0, 5),
      },
      messages: {
        read_back: accepted.length - notReadBack.length,
        not_read_back: notReadBack.length,
        not_sent: notSent.length,
        listed: listed.size,
        listed_twice: listedTwice.length,
        listed_not_accepted: listedStrangers.length,
      },
      mails: {
        at_sink: mails.length,
        lost: lostMails.length,
        duplicated: duplicateMails.length,
        lost_examples: lostMails.slice(0, 5).map((t) => t.messageId),
        duplicate_examples: duplicateMails.slice(0, 5).map((t) => t.messageId),
        // When each copy reached the sink, against the trigger's acceptance and the faults' times.
        duplicate_details: duplicateMails.slice(0, 30).map((t) => ({
          id: t.messageId,
          accepted_at_s: seconds(t.acceptedAt - t0),
          copies_at_s: mails.filter((m) => m.messageId === t.messageId).map((m) => seconds(m.created - t0)),
        })),
        not_from_accepted_triggers: strangers.length,
        second_mail_of_a_retried_trigger: retriedTwice.length,
        stored_though_not_accepted: strangerOrigins.length - retriedTwice.length,
        strangers: strangerOrigins.slice(0, 20),
      },
      webhooks: {
        deliveries: all.length,
        unverified,
        message_sent_missing: hooksMissing.length,
        missing_examples: hooksMissing.slice(0, 5).map((t) => t.messageId),
        delivered_more_than_once: hooksRepeated,
      },
      answers: {
        requests: load.attempts.length,
        status_5xx: all5xx.length,
        status_503_with_retry_after: all5xx.filter((a) => a.status === 503 && a.retryAfter).length,
        no_answer: noAnswer.length,
        database_window_s: dbWindow ? [seconds(dbWindow[0] - t0), seconds(dbWindow[1] - t0)] : null,
        outside_rules: bad5xx.length,
        no_answer_outside_database_window: noAnswerOutside.length,
        outside_examples: bad5xx.slice(0, 5).map((a) => ({ ...a, at_s: seconds(a.at - t0) })),
      },
      drained,
      phases: phaseRows,
      faults,
      not_ready_at_end: notReadyAtEnd,
      monitor_events: events.slice(baselineEvents).map((e) => ({ at_s: seconds(e.at - t0), target: e.target, ok: e.ok })),
    });

    // --- assertions --------------------------------------------------------------------------
    await check(`the load ran: ${report.triggers.sent_per_s} triggers/s for ${report.load_s} s (${rate}/s asked)`, async () => {
      if (report.triggers.sent_per_s < rate * 0.95) throw new Error(`only ${report.triggers.sent_per_s}/s sent`);
      if (load.skipped() > 0) throw new Error(`${load.skipped()} triggers not sent: more than 2000 in flight`);
      if (accepted.length === 0) throw new Error('nothing accepted');
      return `${accepted.length} of ${triggersSent} accepted, ${report.user_updates.accepted} user updates accepted`;
    });
    for (const f of faults)
      await check(`fault: ${f.fault} (at ${f.injected_at_s} s)`, async () => {
        if (f.error) throw new Error(f.error);
        const r = f.recovery[f.target];
        if (f.kind === 'sigkill' || f.kind === 'restart') {
          if (!r) return 'its outage was shorter than the monitor saw';
          if (r.ready_at_s === null) throw new Error(`${f.target} did not come back`);
          return `${f.target} ready again ${r.after_lift_s} s after the start (down ${r.down_for_s} s)`;
        }
        return undefined;
      });
    await check('every accepted trigger has exactly one message (read back by id, listed once)', async () => {
      const problems = [];
      if (notReadBack.length) problems.push(`${notReadBack.length} not read back (${notReadBack.slice(0, 3).map((t) => t.messageId)})`);
      if (notSent.length) problems.push(`${notSent.length} not sent`);
      if (listedTwice.length) problems.push(`${listedTwice.length} listed twice`);
      const unlisted = accepted.filter((t) => !listed.has(t.messageId)).length;
      if (unlisted) problems.push(`${unlisted} accepted but not listed`);
      if (problems.length) throw new Error(problems.join('; '));
      return `${accepted.length} messages; ${listedStrangers.length} more listed from triggers not answered 200 (incl. the warm-up)`;
    });
    await check('every accepted trigger has exactly one mail at the sink, by Message-ID (0 lost, 0 duplicate)', async () => {
      if (lostMails.length || duplicateMails.length || retriedTwice.length)
        throw new Error(
          `${lostMails.length} lost, ${duplicateMails.length} duplicated, ${retriedTwice.length} second mails of triggers accepted on a retry (e.g. ${[...lostMails, ...duplicateMails].slice(0, 3).map((t) => t.messageId)} ${JSON.stringify(retriedTwice.slice(0, 2))})`,
        );
      return `${accepted.length} mails; ${strangers.length} more from requests answered 5xx or not at all, never accepted`;
    });
    await check('every message.sent webhook is delivered at least once and every delivery verifies (Standard Webhooks)', async () => {
      if (hooksMissing.length || unverified) throw new Error(`${hooksMissing.length} missing, ${unverified} not verifying`);
      return `${all.length} deliveries, ${hooksRepeated} delivered more than once`;
    });
    await check('5xx answers only while the database is down, or 503 with Retry-After', async () => {
      if (bad5xx.length)
        throw new Error(
          `${bad5xx.length} outside: ${bad5xx
            .slice(0, 3)
            .map((a) => `${a.kind} ${a.status ?? a.error} at ${seconds(a.at - t0)} s`)
            .join(', ')}`,
        );
      return `${all5xx.length} 5xx (${report.answers.status_503_with_retry_after} 503 with Retry-After)`;
    });
    await check(`every request is answered within ${TRIGGER_TIMEOUT_MS / 1000} s outside the database's outage`, async () => {
      if (noAnswerOutside.length)
        throw new Error(`${noAnswerOutside.length} of ${load.attempts.length} requests without an answer (${noAnswer.length} in all)`);
      return `${noAnswer.length} without an answer, all while the database was down`;
    });
    await check("every user's profile holds its last accepted update", async () => {
      if (staleProfiles.length)
        throw new Error(`${staleProfiles.length} of ${profiles.length} stale: ${JSON.stringify(staleProfiles.slice(0, 2))}`);
      return `${profiles.length} users`;
    });
    await check('every part is ready again at the end', async () => {
      if (notReadyAtEnd.length) throw new Error(notReadyAtEnd.join(', '));
      return `${finalEvents.size} parts`;
    });
  } finally {
    const failedAny = results.some((r) => !r.ok);
    const notReady = report.not_ready_at_end ?? [];
    if (failedAny) for (const s of new Set(['mailer', 'mailer-2', 'gateway', ...notReady])) showLogs(s, notReady.includes(s) ? 80 : 30);
    monitor?.close();
    dns?.close();
    for (const r of receiver.all) r.close();
    report.results = results;
    report.total_s = seconds(Date.now() - startedAt);
    writeReport(report);
    down();
  }
  stack.finish();
}

// ---------------------------------------------------------------------------------------------
function writeReport(report) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'chaos-report.json'), `${JSON.stringify(report, null, 2)}\n`);
  const md = [];
  const row = (cells) => `| ${cells.map((c) => String(c ?? '–').replace(/\|/g, '\\|')).join(' | ')} |`;
  md.push(`# Chaos report (${report.started_at})`, '');
  md.push(
    `Load: ${report.settings.triggers_per_s} triggers/s and ${report.settings.updates_per_s} user updates/s for ${report.load_s ?? '–'} s; drain ${report.drain_s ?? '–'} s; total ${report.total_s} s.`,
    '',
  );
  if (report.triggers) {
    md.push('| Count | Value |', '|---|---|');
    const counts = [
      ['triggers sent / accepted (200)', `${report.triggers.sent} / ${report.triggers.accepted}`],
      [
        'messages read back by id / not sent / listed twice',
        `${report.messages.read_back} / ${report.messages.not_sent} / ${report.messages.listed_twice}`,
      ],
      ['mails at the sink: lost / duplicated', `${report.mails.lost} / ${report.mails.duplicated}`],
      [
        'mails of requests not answered 200: second mail of a trigger accepted on a retry / of a request never accepted',
        `${report.mails.second_mail_of_a_retried_trigger} / ${report.mails.stored_though_not_accepted}`,
      ],
      [
        'webhook deliveries / unverified / message.sent missing',
        `${report.webhooks.deliveries} / ${report.webhooks.unverified} / ${report.webhooks.message_sent_missing}`,
      ],
      [
        'user updates sent / accepted / stale profiles',
        `${report.user_updates.sent} / ${report.user_updates.accepted} / ${report.user_updates.stale_profiles}`,
      ],
      [
        '5xx / of them 503 with Retry-After / no answer / outside the rules',
        `${report.answers.status_5xx} / ${report.answers.status_503_with_retry_after} / ${report.answers.no_answer} / ${report.answers.outside_rules}`,
      ],
      ['database outage window (s)', report.answers.database_window_s?.join(' – ')],
    ];
    for (const c of counts) md.push(row(c));
    md.push(
      '',
      '## Faults',
      '',
      '| t (s) | fault | lifted (s) | recovery: part down → ready (s after injection; s after lift) |',
      '|---|---|---|---|',
    );
    for (const f of report.faults) {
      const rec = Object.entries(f.recovery)
        .map(([t, r]) => `${t} ${r.down_at_s}→${r.ready_at_s ?? 'never'} (${r.after_lift_s ?? '–'})`)
        .join('; ');
      md.push(row([f.injected_at_s, f.fault + (f.error ? ` — ERROR ${f.error}` : ''), f.lifted_at_s, rec || 'nothing went unready']));
    }
    md.push(
      '',
      '## Phases',
      '',
      '| phase | from–to (s) | requests | answers | p50 / p99 / max accept (ms) | p99 / max mail delay (s) |',
      '|---|---|---|---|---|---|',
    );
    for (const p of report.phases)
      md.push(
        row([
          p.phase,
          `${p.from_s}–${p.to_s}`,
          p.requests,
          Object.entries(p.statuses)
            .map(([k, v]) => `${k}: ${v}`)
            .join(', '),
          `${p.p50_accept_ms} / ${p.p99_accept_ms} / ${p.max_accept_ms}`,
          `${p.p99_mail_delay_s} / ${p.max_mail_delay_s}`,
        ]),
      );
  }
  md.push('', '## Checks', '');
  for (const r of report.results ?? []) md.push(`- ${r.ok ? 'ok' : 'FAIL'} ${r.name}`);
  const text = `${md.join('\n')}\n`;
  writeFileSync(join(outDir, 'chaos-report.md'), text);
  console.log(`\n${text}`);
  say(`report: ${join(outDir, 'chaos-report.json')}, ${join(outDir, 'chaos-report.md')}`);
}

main().catch(stack.crashed);
