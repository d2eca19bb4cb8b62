/** @postbus-system shared */
import { randomBytes } from 'node:crypto';
import { call } from '@postbus/testing';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { expectPhpunitPassed, listPhpunitTests, runPhpunit, type PhpunitRun } from './phpunit';
import { createClientAndProject, createSendableEmail, sharedSystem, type RunningSystem } from './system';

// The PHP SDK against the running system: PHPUnit's integration suite (sdks/php/tests/Integration)
// runs once against a fresh stack; each PHPUnit test is one jest test.
const listing = listPhpunitTests('integration');

describe('PHP SDK against the running system (PHPUnit integration suite)', () => {
  let system: RunningSystem | undefined;
  let proxy: FaultProxy | undefined;
  let run: PhpunitRun | undefined;
  // Fixed here so that this side can count what reached the SMTP sink after PHPUnit's retry test.
  const retryRecipient = `php-retry-${randomBytes(4).toString('hex')}@example.com`;

  beforeAll(async () => {
    if (!listing.ok) return;
    system = await sharedSystem();
    const client = await createClientAndProject(system);
    // The data plane runs with a key of scope "sdk", as an application would; reads need "full".
    const sdkKey = await call(system.gatewayUrl, 'POST', '/v1/keys', { auth: client.auth, json: { name: 'php-sdk', scope: 'sdk' } });
    if (sdkKey.status !== 201) throw new Error(`creating the sdk key failed: ${sdkKey.status} ${sdkKey.text}`);
    const email = await createSendableEmail(system, client);
    proxy = await startFaultProxy(system.gatewayUrl);
    run = await runPhpunit('integration', {
      POSTBUS_BASE_URL: system.gatewayUrl,
      POSTBUS_PROXY_URL: proxy.url,
      POSTBUS_CLIENT_ID: client.clientId,
      POSTBUS_API_KEY: sdkKey.body.api_key as string,
      POSTBUS_FULL_API_KEY: client.apiKey,
      POSTBUS_PROJECT_ID: client.projectId,
      POSTBUS_EMAIL_KEY: email.emailKey,
      POSTBUS_SENDER_DOMAIN: email.domain,
      POSTBUS_SINK_URL: system.sink.httpUrl,
      POSTBUS_RETRY_RECIPIENT: retryRecipient,
    });
  }, 600_000);

  afterAll(async () => {
    await proxy?.close();
  });

  if (!listing.ok) {
    test('PHP and PHPUnit are installed and list the suite', () => {
      throw new Error(listing.error);
    });
    return;
  }

  test.each(listing.names.map((name) => [name]))('%s', (name) => expectPhpunitPassed(run, name));

  test('the send the gateway answered 503 twice (after processing it) reached the SMTP sink exactly once', async () => {
    expectPhpunitPassed(
      run,
      'Postbus\\Tests\\Integration\\StackTest::testASendAnswered503TwiceAfterTheGatewayProcessedItIsRetriedAndMailsOnce',
    );
    const found = await system!.sink.client.search(`to:${retryRecipient}`);
    expect(found.messages.map((m) => m.To.map((to) => to.Address))).toEqual([[retryRecipient]]);
    const tries = proxy!.requests.filter((r) => r.path.endsWith('/send') && r.forwarded && r.idempotencyKey !== null);
    const keys = new Set(tries.filter((r) => r.status === 503).map((r) => r.idempotencyKey));
    expect(keys.size).toBe(1);
  });
});
