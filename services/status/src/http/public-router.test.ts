import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import express from 'express';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { publicRouter } from './public-router';
import { STATUSPAGE_SCHEMAS } from '../domain/statuspage.schema';
import { activeMaintenance, buildSnapshot, FakeStatusSource, openIncident, PREVIEW_NOW, previewSnapshot } from '../../preview/scenarios';
import { InMemorySubscriberStore } from '../../preview/in-memory-subscriber-store';
import type { StatusSnapshot } from '../domain/model';
import { SubscriptionTokens } from '../domain/subscription-tokens';
import { Subscriptions } from '../domain/subscriptions';

const OPERATOR_TOKEN = 'operator-token-for-tests';

async function serve(snapshot: StatusSnapshot) {
  const source = new FakeStatusSource(snapshot);
  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const subscribers = new InMemorySubscriberStore();
  const subscriptions = new Subscriptions({
    subscribers,
    baseUrl: url,
    tokens: new SubscriptionTokens('a-test-secret-of-enough-length'),
    confirmations: { sendsMail: false, sendConfirmation: () => undefined },
    policy: undefined,
  });
  const router = publicRouter(source, { baseUrl: url, operatorToken: OPERATOR_TOKEN, subscriptions, subscribers });
  app.use(router);
  return {
    source,
    url,
    get: (path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { headers }),
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

type Served = Awaited<ReturnType<typeof serve>>;

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

describe('the Statuspage v2 API', () => {
  const states = ['operational', 'degraded', 'major-outage', 'maintenance', 'stale'] as const;
  let served: Served[] = [];
  beforeAll(async () => {
    served = await Promise.all(states.map((state) => serve(previewSnapshot(state))));
    // Upcoming and completed maintenance too, so that every enum branch is in some answer.
    served.push(
      await serve(
        buildSnapshot({
          history: true,
          maintenances: [
            activeMaintenance(PREVIEW_NOW, {
              id: 'mnt-next',
              status: 'scheduled',
              scheduledFor: new Date(PREVIEW_NOW.getTime() + 86_400_000),
              scheduledUntil: new Date(PREVIEW_NOW.getTime() + 90_000_000),
            }),
            activeMaintenance(PREVIEW_NOW, { id: 'mnt-done', status: 'completed' }),
          ],
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(served.map((s) => s.close()));
  });

  for (const [route, schema] of Object.entries(STATUSPAGE_SCHEMAS)) {
    it(`when ${route} is read in every state, it matches Statuspage's schema and enums`, async () => {
      const validate = ajv.compile(schema);
      for (const s of served) {
        const res = await s.get(`/api/v2/${route}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const body = (await res.json()) as any;
        const valid = validate(body);
        expect(validate.errors ?? []).toEqual([]);
        expect(valid).toBe(true);
      }
    });
  }

  it('when the schema is given a status outside the enums, it refuses it (the check can fail)', () => {
    const validate = ajv.compile(STATUSPAGE_SCHEMAS['components.json']);
    const page = { id: 'p', name: 'P', url: 'https://x.example', time_zone: 'Etc/UTC', updated_at: PREVIEW_NOW.toISOString() };
    const component = {
      id: 'c',
      name: 'C',
      status: 'unknown',
      created_at: PREVIEW_NOW.toISOString(),
      updated_at: PREVIEW_NOW.toISOString(),
      position: 1,
      description: null,
      showcase: true,
      start_date: '2026-01-01',
      group_id: null,
      page_id: 'p',
      group: false,
      only_show_if_degraded: false,
    };
    expect(validate({ page, components: [component] })).toBe(false);
    expect(validate({ page, components: [{ ...component, status: 'operational' }] })).toBe(true);
  });

  it('derives the indicator from the worst component and open incidents', async () => {
    const indicators = await Promise.all(
      served.slice(0, 5).map(async (s) => ((await (await s.get('/api/v2/status.json')).json()) as any).status),
    );
    expect(indicators).toEqual([
      { indicator: 'none', description: 'All Systems Operational' },
      { indicator: 'minor', description: 'Minor Service Outage' },
      { indicator: 'critical', description: 'Major Service Outage' },
      { indicator: 'none', description: 'Service Under Maintenance' },
      { indicator: 'minor', description: 'Some Systems Not Reporting' },
    ]);
  });

  it('shows the Infrastructure group as one component, as bad as its worst member, never its members', async () => {
    const outage = served[2]!;
    const { components } = (await (await outage.get('/api/v2/components.json')).json()) as any;
    const ids = components.map((c: { id: string }) => c.id);
    expect(ids).toContain('infrastructure');
    expect(ids.filter((id: string) => id.startsWith('infrastructure.'))).toEqual([]);
    expect(components.find((c: { id: string }) => c.id === 'infrastructure').status).toBe('major_outage');
    // The sending group has two public members: a group component lists them and they point back to it.
    const group = components.find((c: { id: string }) => c.id === 'group.sending');
    expect(group).toMatchObject({ group: true, components: ['sending.mailer', 'sending.canary'], status: 'major_outage' });
    expect(components.find((c: { id: string }) => c.id === 'sending.canary').group_id).toBe('group.sending');
  });

  it('lists the open incident in unresolved.json with its updates and affected components folded publicly', async () => {
    const outage = served[2]!;
    const { incidents } = (await (await outage.get('/api/v2/incidents/unresolved.json')).json()) as any;
    expect(incidents.map((i: { id: string }) => i.id)).toEqual(['inc-open']);
    const first = incidents[0].incident_updates.at(-1);
    expect(first.affected_components).toEqual([
      { code: 'sending.mailer', name: 'Email sending', old_status: 'operational', new_status: 'major_outage' },
      { code: 'infrastructure', name: 'Infrastructure', old_status: 'operational', new_status: 'major_outage' },
    ]);
    expect(incidents[0].shortlink).toBe(`${outage.url}/incidents/inc-open`);
    const all = (await (await outage.get('/api/v2/incidents.json')).json()) as any;
    expect(all.incidents.map((i: { id: string }) => i.id)).toEqual(['inc-open', 'inc-past', 'inc-older']);
  });

  it('splits scheduled maintenance into upcoming and active', async () => {
    const mixed = served[5]!;
    const ids = async (path: string) =>
      ((await (await mixed.get(path)).json()) as any).scheduled_maintenances.map((m: { id: string }) => m.id);
    expect(await ids('/api/v2/scheduled-maintenances/upcoming.json')).toEqual(['mnt-next']);
    expect(await ids('/api/v2/scheduled-maintenances/active.json')).toEqual([]);
    expect((await ids('/api/v2/scheduled-maintenances.json')).sort()).toEqual(['mnt-done', 'mnt-next']);
    expect(await ids('/api/v2/scheduled-maintenances/active.json'.replace('active', 'active'))).toEqual([]);
    const maintenance = served[3]!;
    expect(((await (await maintenance.get('/api/v2/scheduled-maintenances/active.json')).json()) as any).scheduled_maintenances[0].id).toBe(
      'mnt-db',
    );
  });
});

describe('caching', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve(previewSnapshot('operational'));
  });
  afterAll(() => s.close());

  it('when the snapshot has not changed, If-None-Match gets 304; when it has, 200 with a new ETag', async () => {
    const first = await s.get('/api/v2/summary.json');
    expect(first.headers.get('cache-control')).toBe('public, max-age=15');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"1-/);
    const again = await s.get('/api/v2/summary.json', { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    // Another route has another tag, whatever the version.
    expect((await s.get('/api/v2/status.json')).headers.get('etag')).not.toBe(etag);
    s.source.current = { ...s.source.current, version: 2 };
    const changed = await s.get('/api/v2/summary.json', { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toMatch(/^"2-/);
    const page = await s.get('/');
    expect(page.headers.get('cache-control')).toBe('public, max-age=15');
    expect((await s.get('/', { 'If-None-Match': page.headers.get('etag')! })).status).toBe(304);
  });
});

describe('the HTML page', () => {
  let outage: Served;
  let maintenance: Served;
  beforeAll(async () => {
    outage = await serve(previewSnapshot('major-outage'));
    maintenance = await serve(previewSnapshot('maintenance'));
  });
  afterAll(async () => {
    await outage.close();
    await maintenance.close();
  });

  it('is complete without JavaScript: banner, components, 90-day bars with uptime, incident, chart, UTC times', async () => {
    const res = await outage.get('/');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Major Service Outage');
    expect(html).toContain('Email sending is down');
    expect(html).toContain('The outbound relay refuses connections');
    expect(html).toContain('<h2>Components</h2>');
    expect(html.match(/class="card component"/g)).toHaveLength(7); // six public lines + one Infrastructure line
    expect(html).not.toContain('>Kafka<');
    const bars = html.match(/<div class="bar"[^>]*>(.*?)<\/div>\s*<div class="legend">/gs) ?? [];
    expect(bars).toHaveLength(7);
    for (const bar of bars) expect(bar.match(/class="d /g)).toHaveLength(90);
    expect(html).toMatch(/\d+\.\d\d % uptime/);
    expect(html).toContain('<svg class="chart"');
    expect(html).toContain('<polyline class="delay"');
    expect(html).toMatch(/<time datetime="2026-11-23T21:10:00.000Z" data-local>2026-11-23 21:10 UTC\+00:00<\/time>/);
    expect(html).toContain('Delayed email sending'); // the past incident, in its day's details
  });

  it('has dark-mode CSS and a CSP that allows exactly its inline style and script', async () => {
    const res = await outage.get('/');
    const html = await res.text();
    expect(html).toContain('@media (prefers-color-scheme:dark)');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'sha256-[^']+'/);
    expect(csp).not.toContain('unsafe-inline');
    const { createHash } = await import('node:crypto');
    const script = /<script>(.*?)<\/script>/s.exec(html)![1]!;
    expect(csp).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
  });

  it('shows maintenance in progress', async () => {
    const html = await (await maintenance.get('/')).text();
    expect(html).toContain('Service Under Maintenance');
    expect(html).toContain('Maintenance in progress');
    expect(html).toContain('Database upgrade');
  });

  it('the operator view lists every infrastructure component, and needs the token', async () => {
    expect((await outage.get('/operator')).status).toBe(401);
    expect((await outage.get('/?view=operator')).status).toBe(401);
    expect((await outage.get('/operator', { Authorization: 'Bearer wrong' })).status).toBe(401);
    const res = await outage.get('/operator', { Authorization: `Bearer ${OPERATOR_TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, max-age=15');
    const html = await res.text();
    for (const name of ['Kafka', 'Database', 'SMTP relay']) expect(html).toContain(`>${name}<`);
    expect(html).toContain('probe says major_outage');
    const basic = Buffer.from(`operator:${OPERATOR_TOKEN}`).toString('base64');
    expect((await outage.get('/?view=operator', { Authorization: `Basic ${basic}` })).status).toBe(200);
  });

  it('has a history page and a page per incident', async () => {
    const history = await (await outage.get('/history')).text();
    expect(history).toContain('Incident history');
    expect(history).toContain('Webhook deliveries failing');
    const incident = await outage.get('/incidents/inc-past');
    expect(incident.status).toBe(200);
    const text = await incident.text();
    expect(text).toContain('The relay accepts mail again');
    expect(text).toContain('Affects: Email sending');
    expect((await outage.get('/incidents/nope')).status).toBe(404);
  });

  it('escapes what it shows', async () => {
    const s = await serve(buildSnapshot({ incidents: [openIncident(PREVIEW_NOW, { name: '<script>alert(1)</script> & "x"' })] }));
    try {
      const html = await (await s.get('/')).text();
      expect(html).not.toContain('<script>alert(1)');
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;');
    } finally {
      await s.close();
    }
  });
});

describe('feeds and badges', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve(buildSnapshot({ history: true, incidents: [openIncident(PREVIEW_NOW, { name: 'Ampersands & <angles> "quoted"' })] }));
  });
  afterAll(() => s.close());

  it('Atom and RSS parse as XML and contain the incident, escaped', async () => {
    const parser = new XMLParser({ ignoreAttributes: false });
    const atom = await s.get('/history.atom');
    expect(atom.headers.get('content-type')).toMatch(/^application\/atom\+xml/);
    const atomText = await atom.text();
    expect(XMLValidator.validate(atomText)).toBe(true);
    const feed = parser.parse(atomText).feed;
    const entries = [feed.entry].flat();
    expect(entries[0].title).toBe('Incident: Ampersands & <angles> "quoted"');
    expect(entries[0].link['@_href']).toBe(`${s.url}/incidents/inc-open`);
    const rssText = await (await s.get('/history.rss')).text();
    expect(XMLValidator.validate(rssText)).toBe(true);
    const items = [parser.parse(rssText).rss.channel.item].flat();
    expect(items[0].title).toBe('Incident: Ampersands & <angles> "quoted"');
    expect(items[0].description).toContain('The outbound relay refuses connections');
  });

  it('badges are SVG naming the status; an unknown component has none', async () => {
    const overall = await s.get('/badge.svg');
    expect(overall.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const overallSvg = await overall.text();
    expect(XMLValidator.validate(overallSvg)).toBe(true);
    expect(overallSvg).toContain('major service outage');
    const component = await (await s.get('/badge/api.gateway.svg')).text();
    expect(component).toContain('<svg');
    expect(component).toContain('API: operational');
    expect((await s.get('/badge/infrastructure.svg')).status).toBe(200);
    expect((await s.get('/badge/infrastructure.kafka.svg')).status).toBe(404);
  });
});
