import { TrackingTokens } from '@postbus/crypto';
import { addTracking } from './tracking';

describe('addTracking', () => {
  const tokens = new TrackingTokens('x'.repeat(32));
  const options = { tokens, messageId: 'msg_1', projectId: 'p1', baseUrl: 'https://links.example.com', opens: true, clicks: true };

  it('rewrites each http(s) anchor to /t/c with a token sealing its decoded URL, and adds the open pixel', async () => {
    const html = `<html><body><a class="x" href="https://shop.example/a?b=1&amp;c=2">A</a> <A HREF='http://shop.example/b'>B</A> <a href="mailto:x@y">m</a></body></html>`;
    const out = await addTracking(html, options);
    const links = [...out.matchAll(/https:\/\/links\.example\.com\/t\/c\/([^"']+)/g)].map((m) => m[1]!);
    expect(links).toHaveLength(2);
    expect((await tokens.verify(links[0]!, 'click'))?.url).toBe('https://shop.example/a?b=1&c=2');
    expect((await tokens.verify(links[1]!, 'click'))?.url).toBe('http://shop.example/b');
    expect(out).toContain(`<a class="x" href="https://links.example.com/t/c/`);
    expect(out).toContain(`<A HREF='https://links.example.com/t/c/`);
    expect(out).toContain('<a href="mailto:x@y">m</a>');
    expect(out).toMatch(/<img src="https:\/\/links\.example\.com\/t\/o\/[^"]+" width="1" height="1" alt="" style="display:none"><\/body>/);
  });

  it('13.6 hostile HTML (200 KB of "<a" never closed) is rewritten in linear time, well under a second', async () => {
    const hostile = '<a '.repeat(70_000) + 'href';
    const started = performance.now();
    const out = await addTracking(hostile, { ...options, opens: false });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(out).toBe(hostile);
  });
});
