import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { BusUnavailableError, type Publisher } from '@postbus/bus';
import { TrackingTokens } from '@postbus/crypto';
import { createLogger } from '@postbus/logger';
import { call, defaultKafkaBrokers, sleep, TopicRecorder, waitFor } from '@postbus/testing';
import { edgeRouter } from '../src/http/edge';
import { startTestGateway, type TestGateway } from './helpers';

const SECRET = 'edge-test-secret-0123456789abcdef-0123456789';
const tokens = new TrackingTokens(SECRET);
const projectId = randomBytes(12).toString('hex');
const newMessageId = () => `msg_${randomBytes(16).toString('hex')}`;
const CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'";

/** The same token with its payload rewritten and the signature kept, as a forger would try. */
function tamper(token: string, change: (payload: Record<string, unknown>) => void): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
  change(claims);
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

describe('edge endpoints (/t)', () => {
  let gw: TestGateway;
  let events: TopicRecorder;

  beforeAll(async () => {
    gw = await startTestGateway({ TRACKING_SECRET: SECRET });
    events = await new TopicRecorder(defaultKafkaBrokers().split(','), [`postbus.tracking.events.v1.${gw.namespace}`]).start();
  });

  afterAll(async () => {
    await events?.stop();
    await gw?.stop();
  });

  const eventsOf = (type: string, messageId: string) => events.ofType(type).filter((m) => m.key === messageId);

  describe('the open pixel', () => {
    it('then a valid token answers a transparent GIF, never cached, and records tracking.opened keyed by the message', async () => {
      const messageId = newMessageId();
      const res = await fetch(`${gw.url}/t/o/${await tokens.sign({ action: 'open', messageId, projectId })}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/gif');
      expect(res.headers.get('cache-control')).toBe('no-store, private');
      const gif = Buffer.from(await res.arrayBuffer());
      expect(gif.subarray(0, 6).toString()).toBe('GIF89a');
      expect(gif.readUInt16LE(6)).toBe(1);
      expect(gif.readUInt16LE(8)).toBe(1);
      const [event] = await waitFor(() => eventsOf('tracking.opened', messageId).length > 0 && eventsOf('tracking.opened', messageId), {
        what: 'tracking.opened on the bus',
      });
      expect(event!.headers).toMatchObject({ ce_type: 'tracking.opened', ce_source: 'postbus/gateway' });
      expect(event!.value).toEqual({ messageId, projectId, at: expect.any(String) });
      expect(Number.isNaN(Date.parse((event!.value as { at: string }).at))).toBe(false);
    });

    it('then a token of another action, another secret, or over 4 KB is a 404 without an image', async () => {
      const messageId = newMessageId();
      const click = await tokens.sign({ action: 'click', messageId, projectId, url: 'https://example.com/' });
      const foreign = await new TrackingTokens('another-secret-of-at-least-32-characters').sign({ action: 'open', messageId, projectId });
      for (const token of [
        click,
        foreign,
        `${await tokens.sign({ action: 'open', messageId, projectId })}${'A'.repeat(4100)}`,
        'nonsense',
      ]) {
        const res = await call(gw.url, 'GET', `/t/o/${token}`);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).not.toMatch(/image/);
      }
      await sleep(1000);
      expect(eventsOf('tracking.opened', messageId)).toHaveLength(0);
    });
  });

  describe('the click redirect', () => {
    it('then a valid token redirects (302) to exactly the signed URL and records tracking.clicked with it', async () => {
      const messageId = newMessageId();
      const url = 'https://shop.example/offers?utm_source=postbus&x=%C3%A9#top';
      const res = await fetch(`${gw.url}/t/c/${await tokens.sign({ action: 'click', messageId, projectId, url })}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(url);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const [event] = await waitFor(() => eventsOf('tracking.clicked', messageId).length > 0 && eventsOf('tracking.clicked', messageId), {
        what: 'tracking.clicked on the bus',
      });
      expect(event!.value).toEqual({ messageId, projectId, url, at: expect.any(String) });
    });

    it('then a forged token (another URL, the signature kept) is a 404 page and never a redirect', async () => {
      const messageId = newMessageId();
      const genuine = await tokens.sign({ action: 'click', messageId, projectId, url: 'https://shop.example/' });
      const forged = tamper(genuine, (claims) => {
        claims['u'] = 'https://evil.example/phish';
      });
      const res = await fetch(`${gw.url}/t/c/${forged}`, { redirect: 'manual' });
      expect(res.status).toBe(404);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      await sleep(1000);
      expect(eventsOf('tracking.clicked', messageId)).toHaveLength(0);
    });

    it('then a signed URL that is not http(s) is a 404, never a redirect', async () => {
      const token = await tokens.sign({ action: 'click', messageId: newMessageId(), projectId, url: 'javascript:alert(1)' });
      const res = await fetch(`${gw.url}/t/c/${token}`, { redirect: 'manual' });
      expect(res.status).toBe(404);
      expect(res.headers.get('location')).toBeNull();
    });
  });

  describe('unsubscribe', () => {
    it('then GET shows a page with a button that posts, and unsubscribes nobody', async () => {
      const messageId = newMessageId();
      const res = await call(gw.url, 'GET', `/t/u/${await tokens.sign({ action: 'unsubscribe', messageId, projectId })}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toBe(CSP);
      expect(res.headers.get('cache-control')).toBe('no-store, private');
      expect(res.text).toMatch(/<form method="post"/);
      expect(res.text).toMatch(/<button type="submit">Unsubscribe<\/button>/);
      expect(res.text).not.toMatch(/<(script|link|img)\b/);
      await sleep(1000);
      expect(eventsOf('tracking.unsubscribed', messageId)).toHaveLength(0);
    });

    it('then an RFC 8058 one-click POST records tracking.unsubscribed before answering 200', async () => {
      const messageId = newMessageId();
      const res = await call(gw.url, 'POST', `/t/u/${await tokens.sign({ action: 'unsubscribe', messageId, projectId })}`, {
        raw: 'List-Unsubscribe=One-Click',
        contentType: 'application/x-www-form-urlencoded',
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toMatch(/You are unsubscribed/);
      const [event] = await waitFor(
        () => eventsOf('tracking.unsubscribed', messageId).length > 0 && eventsOf('tracking.unsubscribed', messageId),
        { what: 'tracking.unsubscribed on the bus' },
      );
      expect(event!.value).toEqual({ messageId, projectId, at: expect.any(String) });
    });

    it('then a POST with any other body is accepted too: neither the /v1 JSON rules nor its credentials apply', async () => {
      const messageId = newMessageId();
      const token = await tokens.sign({ action: 'unsubscribe', messageId, projectId });
      const plain = await call(gw.url, 'POST', `/t/u/${token}`, { raw: 'whatever', contentType: 'text/plain' });
      expect(plain.status).toBe(200);
      const empty = await call(gw.url, 'POST', `/t/u/${token}`);
      expect(empty.status).toBe(200);
      await waitFor(() => eventsOf('tracking.unsubscribed', messageId).length === 2, { what: 'both unsubscribes on the bus' });
    });

    it('then a token signed with another secret, or of another action, is a 404 for GET and POST alike', async () => {
      const messageId = newMessageId();
      const foreign = await new TrackingTokens('another-secret-of-at-least-32-characters').sign({
        action: 'unsubscribe',
        messageId,
        projectId,
      });
      const open = await tokens.sign({ action: 'open', messageId, projectId });
      for (const token of [foreign, open, tamper(open, (c) => (c['a'] = 'u'))]) {
        expect((await call(gw.url, 'GET', `/t/u/${token}`)).status).toBe(404);
        const post = await call(gw.url, 'POST', `/t/u/${token}`, {
          raw: 'List-Unsubscribe=One-Click',
          contentType: 'application/x-www-form-urlencoded',
        });
        expect(post.status).toBe(404);
      }
      await sleep(1000);
      expect(eventsOf('tracking.unsubscribed', messageId)).toHaveLength(0);
    });
  });

  it('then the /v1 API and the not-found handler are unchanged around the edge', async () => {
    expect((await call(gw.url, 'GET', '/v1/projects')).status).toBe(401);
    const unknown = await call(gw.url, 'GET', '/t/x/abc');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

describe('edge endpoints when the broker does not take the event', () => {
  let url: string;
  let server: ReturnType<ReturnType<typeof express>['listen']>;

  beforeAll(async () => {
    const publisher = {
      publish: () => Promise.reject(new BusUnavailableError(new Error('no acknowledgement within 5000 ms'))),
    } as unknown as Publisher;
    const app = express();
    app.use(edgeRouter({ tokens, publisher, logger: createLogger({ service: 'edge-test', level: 'error' }) }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('then the pixel is still served and the click still redirected', async () => {
    const messageId = newMessageId();
    const pixel = await fetch(`${url}/t/o/${await tokens.sign({ action: 'open', messageId, projectId })}`);
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    const click = await fetch(`${url}/t/c/${await tokens.sign({ action: 'click', messageId, projectId, url: 'http://shop.example/a' })}`, {
      redirect: 'manual',
    });
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toBe('http://shop.example/a');
  });

  it('then a one-click unsubscribe is a 503 with Retry-After, never a silent success', async () => {
    const res = await call(url, 'POST', `/t/u/${await tokens.sign({ action: 'unsubscribe', messageId: newMessageId(), projectId })}`, {
      raw: 'List-Unsubscribe=One-Click',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
