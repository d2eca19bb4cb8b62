import { AddressPolicy } from '@postbus/http/address-policy';
import { sendableWebhookUrl, webhookUrlProblems } from './webhook-url';

describe('a webhook URL to subscribe', () => {
  const policy = new AddressPolicy(['127.0.0.1:9000-9099']);

  it('when it is not an http(s) URL, carries credentials or is huge, it is refused whatever the policy', async () => {
    for (const p of [policy, undefined]) {
      expect((await webhookUrlProblems('not a url', p)).problems).toEqual(['is not an absolute URL']);
      expect((await webhookUrlProblems('ftp://8.8.8.8/', p)).problems).toEqual(['must be an http or https URL']);
      expect((await webhookUrlProblems('https://user:pw@8.8.8.8/', p)).problems).toEqual(['may not carry credentials']);
      expect((await webhookUrlProblems(`https://8.8.8.8/${'a'.repeat(2048)}`, p)).problems).toEqual(['is longer than 2048 characters']);
    }
  });

  it('when the policy refuses both its address and its port, both are named', async () => {
    expect((await webhookUrlProblems('http://[::127.0.0.1]:25/', policy)).problems).toEqual([
      '::7f00:1 is an IPv4-compatible address of 127.0.0.1, a loopback address, not a public address',
      'port 25 is not allowed: webhooks are sent to port 80 (http) or 443 (https) only',
    ]);
  });

  it('when every address and port is admitted (STATUS_WEBHOOK_ALLOW_PRIVATE), a loopback URL on any port passes', async () => {
    const { url, problems } = await webhookUrlProblems('http://127.0.0.1:25/', undefined);
    expect(problems).toEqual([]);
    expect(url?.port).toBe('25');
  });
});

describe('a subscribed webhook URL at send time', () => {
  const policy = new AddressPolicy(['127.0.0.1:9000-9099']);
  it.each([
    ['https://8.8.8.8/hook', true],
    ['https://hooks.example/hook', true], // a name: the connect-time lookup judges what it resolves to
    ['http://127.0.0.1:9050/hook', true], // admitted
    ['http://127.0.0.1:8081/hook', false],
    ['http://[::7f00:1]/hook', false],
    ['http://[::ffff:a9fe:a9fe]/', false],
    ['http://8.8.8.8:25/', false],
    ['http://hooks.example:6379/', false],
  ])('%s may be sent to: %s', (url, sendable) => {
    expect(sendableWebhookUrl(new URL(url), policy)).toBe(sendable);
  });

  it('without a policy, anything may', () => {
    expect(sendableWebhookUrl(new URL('http://127.0.0.1:25/'), undefined)).toBe(true);
  });
});
