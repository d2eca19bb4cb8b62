import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { TrackingTokens } from '@postbus/crypto';
import { startTestGateway, type TestGateway } from './helpers';

const SECRET = 'edge-hosts-secret-0123456789abcdef-0123456789';
const DAY_MS = 24 * 60 * 60 * 1000;
const projectId = randomBytes(12).toString('hex');
const messageId = () => `msg_${randomBytes(16).toString('hex')}`;

/** Issue 13.6: a tracking link answers on its own message's tracking domain only, and not forever. */
describe('edge tokens: host and expiry', () => {
  let gw: TestGateway;
  const tokens = new TrackingTokens(SECRET);

  beforeAll(async () => {
    gw = await startTestGateway({ TRACKING_SECRET: SECRET });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  /** A GET with the Host header a browser would send for that domain (fetch cannot set Host). */
  const get = (path: string, host: string) =>
    new Promise<number>((resolve, reject) => {
      const url = new URL(gw.url);
      request({ host: url.hostname, port: url.port, path, method: 'GET', headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });

  it('13.6 an open or click token answers on its tracking domain and is a 404 on any other host', async () => {
    const open = await tokens.sign({ action: 'open', messageId: messageId(), projectId, host: 'links.shop.example' });
    const click = await tokens.sign({
      action: 'click',
      messageId: messageId(),
      projectId,
      host: 'links.shop.example',
      url: 'https://shop.example/',
    });
    expect(await get(`/t/o/${open}`, 'links.shop.example')).toBe(200);
    expect(await get(`/t/o/${open}`, 'LINKS.shop.example:443')).toBe(200);
    expect(await get(`/t/c/${click}`, 'links.shop.example')).toBe(302);
    expect(await get(`/t/o/${open}`, 'links.other-tenant.example')).toBe(404);
    expect(await get(`/t/c/${click}`, 'links.other-tenant.example')).toBe(404);
  });

  it('13.6 an unsubscribe token answers on the public host it was signed for only', async () => {
    const unsubscribe = await tokens.sign({ action: 'unsubscribe', messageId: messageId(), projectId, host: 'mail.postbus.example' });
    expect(await get(`/t/u/${unsubscribe}`, 'mail.postbus.example')).toBe(200);
    expect(await get(`/t/u/${unsubscribe}`, 'links.shop.example')).toBe(404);
  });

  it('13.6 a token past its expiry is a 404; one inside it answers', async () => {
    const signedLongAgo = new TrackingTokens(SECRET, { ttlMs: 180 * DAY_MS, now: () => Date.now() - 181 * DAY_MS });
    const expired = await signedLongAgo.sign({ action: 'open', messageId: messageId(), projectId, host: 'links.shop.example' });
    expect(await get(`/t/o/${expired}`, 'links.shop.example')).toBe(404);
    const signedRecently = new TrackingTokens(SECRET, { ttlMs: 180 * DAY_MS, now: () => Date.now() - 179 * DAY_MS });
    const fresh = await signedRecently.sign({ action: 'open', messageId: messageId(), projectId, host: 'links.shop.example' });
    expect(await get(`/t/o/${fresh}`, 'links.shop.example')).toBe(200);
  });
});
