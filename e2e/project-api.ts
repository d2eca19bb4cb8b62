import { call, waitFor } from '@postbus/testing';
import {
  createClientAndProject,
  createSendableEmail,
  sharedSystem,
  startSystem,
  type DemoClient,
  type EmailSetup,
  type RunningSystem,
} from './system';

/**
 * The `count` mails of a message at the sink (the recipient's and each copy's, found by their
 * Message-ID at `domain`, the sender domain), with their headers and source.
 */
export async function mailsAtSink(system: RunningSystem, messageId: string, domain: string, count: number) {
  const found = await waitFor(
    async () => {
      const { messages } = await system.sink.client.search(`message-id:${messageId}@${domain}`);
      return messages.length >= count ? messages : undefined;
    },
    { timeoutMs: 30_000, what: `the message's ${count} mails` },
  );
  expect(found).toHaveLength(count);
  return Promise.all(
    found.map(async ({ ID }) => ({
      mail: await system.sink.client.get(ID),
      headers: await system.sink.client.headers(ID),
      raw: await system.sink.client.raw(ID),
    })),
  );
}

/** A call of the public API in the client's project: `path` under /v1/projects/<its id>, with its key, `json` as the body when given. */
export const projectCall = (system: RunningSystem, client: DemoClient, method: string, path: string, json?: unknown) =>
  call(system.gatewayUrl, method, `/v1/projects/${client.projectId}${path}`, {
    auth: client.auth,
    ...(json !== undefined ? { json } : {}),
  });

/**
 * Sends the project's `welcome` email to `user`, waits until the mail sink has it (its Message-ID at
 * `domain`, the sender domain), and returns the message id, the sink's summary and the mail.
 */
export async function sendAndReceive(system: RunningSystem, client: DemoClient, domain: string, user: { email: string; name?: string }) {
  const res = await projectCall(system, client, 'POST', '/emails/welcome/send', { user, data: {} });
  expect(res.status).toBe(200);
  const id = res.body.message_id as string;
  const arrived = await system.sink.client.waitForMessageId(`${id}@${domain}`);
  const mail = await system.sink.client.get(arrived.ID);
  return { id, arrived, mail };
}

/**
 * For the tests of one file: before them, starts the system (with `start`'s options), or takes the
 * worker's shared one (`shared`: the file's docblock says `@postbus-system shared`), with a client
 * and its project (with `sendable`, the `welcome` email ready to send as well, set up as it says)
 * and hands them to `use`; after them, stops the system it started.
 */
export function withSystemAndClient(
  options: { sendable?: boolean | EmailSetup; start?: Parameters<typeof startSystem>; shared?: boolean; timeoutMs?: number },
  use: (started: { system: RunningSystem; client: DemoClient }) => void,
): void {
  let started: RunningSystem | undefined;
  beforeAll(async () => {
    const system = options.shared ? await sharedSystem() : (started = await startSystem(...(options.start ?? [])));
    const client = await createClientAndProject(system);
    if (options.sendable) await createSendableEmail(system, client, options.sendable === true ? {} : options.sendable);
    use({ system, client });
  }, options.timeoutMs);
  afterAll(async () => {
    await started?.stop();
  });
}
