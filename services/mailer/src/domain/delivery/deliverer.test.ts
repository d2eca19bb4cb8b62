import { LoopTurns } from '@postbus/http/loop-turns';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import type { CatalogDomain, CatalogEmail, CatalogLayout, CatalogProject, CatalogTemplate } from '@postbus/contracts';
import { ReturnPathTokens, SecretBox, TrackingTokens } from '@postbus/crypto';
import { loopHeld, TemplateEngine } from '@postbus/templates';
import type { CatalogLookup, ProfileLanguages, Relay } from '../ports/delivery';
import type { MessageDoc } from '../message-records';
import { Deliverer, type Outcome } from './deliverer';

const secrets = new SecretBox(randomBytes(32).toString('base64'));
const dkimPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** Two clients, each with a project on a verified sender domain and one email per template; and the layouts. */
function catalogOf(templates: CatalogTemplate[], layouts: CatalogLayout[] = []): CatalogLookup {
  const base = { revision: 1 };
  const domain: CatalogDomain = {
    ...base,
    id: 'd1',
    clientId: 'cl_shared',
    kind: 'sender',
    domain: 'mail.example.com',
    status: 'verified',
    dkim: { selector: 'pb1', privateKey: secrets.seal(dkimPem) },
  };
  const project = (id: string, clientId: string): CatalogProject => ({
    ...base,
    id,
    clientId,
    name: id,
    fromEmail: 'hello@mail.example.com',
    fromName: null,
    replyTo: null,
    senderDomainId: 'd1',
    trackingDomainId: null,
  });
  const entities = new Map<string, unknown>([
    ['project:p-hostile', project('p-hostile', 'cl_hostile')],
    ['project:p-quiet', project('p-quiet', 'cl_quiet')],
    ['domain:d1', domain],
    ...templates.map((t): [string, unknown] => [`template:${t.id}`, t]),
    ...layouts.map((l): [string, unknown] => [`layout:${l.id}`, l]),
    ...templates.map((t): [string, unknown] => [
      `email:e-${t.id}`,
      {
        ...base,
        id: `e-${t.id}`,
        clientId: t.clientId,
        projectId: t.projectId,
        key: t.id,
        name: t.id,
        templateId: t.id,
        trackOpens: false,
        trackClicks: false,
        sendToUnsubscribed: false,
        fromEmail: null,
        fromName: null,
        replyTo: null,
      } satisfies CatalogEmail,
    ]),
  ]);
  return { get: (kind: string, id: string) => Promise.resolve(entities.get(`${kind}:${id}`)) } as unknown as CatalogLookup;
}

const template = (id: string, projectId: string, clientId: string, html: string, cheap?: boolean): CatalogTemplate => ({
  id,
  clientId,
  revision: 1,
  projectId,
  name: id,
  version: 1,
  subject: 'Hi {{user.name}}',
  html,
  text: null,
  ...(cheap === undefined ? {} : { cheap }),
});

/** The review's template: two nested loops over data.a, 300 conditions inside (8 KB). */
const nested = `{{#each data.a}}{{#each ../data.a}}${'{{#if ../../data.x}}{{/if}}'.repeat(300)}{{/each}}{{/each}}`;
const hundredItems = { a: Array.from({ length: 100 }, (_, i) => i), x: 1 };

/** A users service that is never asked (these templates have no variants). */
const noProfiles: ProfileLanguages = { languageOf: () => Promise.reject(new Error('no profile is read for a template without variants')) };

/** How long a pool render may keep a run waiting: generous, for a loaded 2-core host. */
const PATIENCE_MS = 3_000;

let n = 0;
const message = (templateId: string, projectId: string, data: Record<string, unknown> = {}): MessageDoc => ({
  _id: `msg_${(++n).toString(16).padStart(32, '0')}`,
  projectId,
  emailId: `e-${templateId}`,
  emailKey: templateId,
  templateId,
  templateVersion: 1,
  email: 'ann@example.org',
  userId: null,
  user: { email: 'ann@example.org', name: 'Ann' },
  data,
  acceptedAt: new Date(),
  createdAt: new Date(),
});

describe('Deliverer: rendering', () => {
  const sent: Buffer[] = [];
  const envelopes: Array<{ from: string; to: string }> = [];
  /** Addresses the fake relay refuses (a 5xx bounces, a 4xx defers); it takes the others. */
  const refusing = new Map([
    ['gone@example.org', 550],
    ['dead-recipient@example.org', 550],
    ['busy-recipient@example.org', 451],
    ['busy-copy@example.org', 451],
  ]);
  const relay: Relay = {
    send: (from: string, to: string, raw: Buffer) => {
      sent.push(raw);
      envelopes.push({ from, to });
      const code = refusing.get(to);
      return Promise.resolve(
        code === undefined
          ? { status: 'sent' as const, code: 250, response: '250 OK' }
          : { status: code >= 500 ? ('bounced' as const) : ('deferred' as const), code, response: `${code} no` },
      );
    },
  };
  const tokens = new TrackingTokens(randomBytes(32).toString('hex'));
  const returnPath = new ReturnPathTokens(randomBytes(32).toString('hex'));
  /** What the mail's List-Unsubscribe links and its envelope sender name. */
  const addresseeOf = async (raw: Buffer, from: string) => {
    const unfolded = raw
      .toString()
      .split('\r\n\r\n')[0]!
      .replace(/\r\n[ \t]+/g, ' ');
    const header = /^List-Unsubscribe: (.*)$/m.exec(unfolded)?.[1] ?? '';
    const url = /<https:\/\/pb\.example\.com\/t\/u\/([^>]+)>/.exec(header)?.[1];
    const mailto = /<mailto:([^@>]+)@/.exec(header)?.[1];
    return {
      bounce: returnPath.verify(from.slice(0, from.indexOf('@'))),
      mailto: returnPath.verify(mailto ?? ''),
      oneClick: (await tokens.verify(url ?? '', 'unsubscribe'))?.copy ?? null,
    };
  };
  /** Suppressed addresses of every project, and why. */
  const suppressedCopies = new Map([
    ['bounced@example.org', 'hard_bounce'],
    ['unsubscribed@example.org', 'unsubscribed'],
  ]);
  let engine: TemplateEngine;
  let deliverer: Deliverer;
  /** The attachment store: bytes by `<message id>:<position>`. */
  const stored = new Map<string, Buffer>();

  beforeAll(() => {
    // A generous time on the threads: a loaded 2-core host must not turn the counts these tests expect into time limits.
    engine = new TemplateEngine({ threads: 2, poolTimeMs: 10_000, maxWaitMs: 30_000 });
    deliverer = new Deliverer({
      catalog: catalogOf([
        template('heavy', 'p-hostile', 'cl_hostile', nested, false),
        template('links', 'p-quiet', 'cl_quiet', '<p><a href="{{data.url}}">pay</a> <img src="{{data.logo}}" alt=""></p>'),
        template('receipt', 'p-quiet', 'cl_quiet', '<p>Thanks {{user.name}}, order {{data.order}}</p>', true),
      ]),
      secrets,
      tokens,
      returnPath,
      relay,
      suppressionsOf: (_projectId, addresses) => Promise.resolve(addresses.map((a) => suppressedCopies.get(a))),
      publicBaseUrl: 'https://pb.example.com',
      catalogWaitMs: 0,
      profiles: noProfiles,
      templates: engine,
      runPatienceMs: PATIENCE_MS,
      attachments: { read: (messageId, position) => Promise.resolve(stored.get(`${messageId}:${position}`) ?? null) },
      turns: new LoopTurns(10),
    });
  });

  beforeAll(async () => {
    // Both threads started: what is measured is rendering, not a thread's start (long under jest, which compiles its TypeScript).
    await Promise.all(
      ['a', 'b'].map((tenant) => engine.render({ key: 'warm', parts: { subject: 'x', html: 'y' }, cheap: false }, {}, tenant)),
    );
  });

  afterAll(async () => {
    await engine.close();
  });

  it('a known-heavy template fails its message by name, in a worker thread, the event loop never held', async () => {
    let outcome: Outcome | undefined;
    const held = (
      await loopHeld(async () => {
        outcome = await deliverer.deliver(message('heavy', 'p-hostile', hundredItems), undefined);
      })
    ).cpuMs;
    expect(outcome).toEqual({
      event: 'failed',
      reason: 'render: the template evaluates more than 50000 helpers and sections in one render',
    });
    expect(held).toBeLessThan(80);
    expect(engine.stats.poolJobs).toBeGreaterThanOrEqual(1);
  });

  it("7e a javascript: URL in data never reaches the sent mail's href (click tracking off); a data: image is not a link", async () => {
    const before = sent.length;
    const outcome = await deliverer.deliver(
      message('links', 'p-quiet', { url: '\tJaVaScRiPt:alert(document.cookie)', logo: 'vbscript:msgbox(1)' }),
      undefined,
    );
    expect(outcome.event).toBe('sent');
    const mail = await simpleParser(sent[before]!);
    expect(mail.html).toBe('<p><a href="#">pay</a> <img src="" alt=""></p>');
    expect(outcome.content?.html).toBe(mail.html);
    const safe = await deliverer.deliver(message('links', 'p-quiet', { url: 'https://pay.example/', logo: 'cid:logo' }), undefined);
    expect(safe.content?.html).toBe('<p><a href="https://pay.example/">pay</a> <img src="cid:logo" alt=""></p>');
  });

  it('sends the stored attachments of a message, and fails one whose file is gone or is not what was accepted', async () => {
    const pdf = randomBytes(3000);
    const withFile = (): MessageDoc => ({
      ...message('receipt', 'p-quiet', { order: 7 }),
      attachments: [
        {
          filename: 'invoice.pdf',
          contentType: 'application/pdf',
          size: pdf.length,
          sha256: createHash('sha256').update(pdf).digest('hex'),
        },
      ],
    });
    const before = sent.length;
    const good = withFile();
    stored.set(`${good._id}:0`, pdf);
    expect((await deliverer.deliver(good, undefined)).event).toBe('sent');
    const mail = await simpleParser(sent[before]!);
    expect(mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([['invoice.pdf', 'application/pdf']]);
    expect(mail.attachments[0]!.content.equals(pdf)).toBe(true);

    const gone = withFile();
    expect(await deliverer.deliver(gone, undefined)).toEqual({
      event: 'failed',
      reason: 'attachments: the content of attachment 0 is not stored',
    });
    const altered = withFile();
    stored.set(`${altered._id}:0`, Buffer.concat([pdf.subarray(1), Buffer.from('x')]));
    expect(await deliverer.deliver(altered, undefined)).toEqual({
      event: 'failed',
      reason: 'attachments: the content of attachment 0 is not what was accepted',
    });
    expect(sent.length).toBe(before + 1);
  });

  it('sends each cc and bcc copy in its own transaction, with its own return path and unsubscribe links, the bcc ones in no header, dropping suppressed and refused ones', async () => {
    const before = sent.length;
    const copied: MessageDoc = {
      ...message('receipt', 'p-quiet', { order: 7 }),
      cc: ['bo@example.org', 'bounced@example.org', 'gone@example.org'],
      bcc: ['archive@example.org', 'unsubscribed@example.org'],
    };
    const outcome = await deliverer.deliver(copied, undefined);
    expect(outcome.event).toBe('sent');
    // The recipient's first, then the copies', side by side.
    const mails = envelopes.slice(before).map((envelope, i) => ({ ...envelope, raw: sent[before + i]! }));
    expect(mails[0]!.to).toBe('ann@example.org');
    expect(mails.map((m) => m.to).sort()).toEqual(['ann@example.org', 'archive@example.org', 'bo@example.org', 'gone@example.org']);
    // Each names its addressee: the recipient by the message alone, a copy by its position (cc, then bcc, from 1).
    const named = Object.fromEntries(await Promise.all(mails.map(async (m) => [m.to, await addresseeOf(m.raw, m.from)] as const)));
    const messageId = copied._id;
    const ofCopy = (copy: number) => ({
      bounce: { purpose: 'bounce', messageId, copy },
      mailto: { purpose: 'unsubscribe', messageId, copy },
      oneClick: copy,
    });
    expect(named).toEqual({
      'ann@example.org': { bounce: { purpose: 'bounce', messageId }, mailto: { purpose: 'unsubscribe', messageId }, oneClick: null },
      'bo@example.org': ofCopy(1),
      'gone@example.org': ofCopy(3),
      'archive@example.org': ofCopy(4),
    });
    for (const raw of sent.slice(before)) {
      const mail = await simpleParser(raw);
      expect(mail.cc).toMatchObject({ value: [{ address: 'bo@example.org' }, { address: 'gone@example.org' }] });
      expect(mail.to).toMatchObject({ value: [{ address: 'ann@example.org' }] });
      expect(mail.headers.has('bcc')).toBe(false);
      expect(raw.toString()).not.toContain('archive@example.org');
    }
    expect(outcome.droppedCopies).toEqual([
      { email: 'bounced@example.org', kind: 'cc', reason: 'hard_bounce' },
      { email: 'unsubscribed@example.org', kind: 'bcc', reason: 'unsubscribed' },
      { email: 'gone@example.org', kind: 'cc', reason: 'refused by the relay: 550 550 no' },
    ]);
    expect(outcome.deliveredCopies).toEqual([
      { email: 'bo@example.org', kind: 'cc' },
      { email: 'archive@example.org', kind: 'bcc' },
    ]);
    // A message without copies asks nothing more, sends once and says nothing of them.
    const plain = await deliverer.deliver(message('receipt', 'p-quiet', { order: 8 }), undefined);
    expect(plain.droppedCopies).toBeUndefined();
    expect(plain.deliveredCopies).toBeUndefined();
    expect(envelopes.slice(before + 4).map((e) => e.to)).toEqual(['ann@example.org']);
  });

  it('sends a content send as it came: no template, its own From, its further To addresses in the To header, each in its own transaction', async () => {
    const before = sent.length;
    const { emailId: _e, emailKey: _k, templateId: _t, templateVersion: _v, ...base } = message('receipt', 'p-quiet');
    const content: MessageDoc = {
      ...base,
      content: {
        subject: 'Order {{data.order}} shipped',
        html: '<p>{{user.name}}, it is on its way</p>',
        fromEmail: 'orders@mail.example.com',
        fromName: 'Shop Orders',
        trackOpens: false,
        trackClicks: false,
      },
      to: ['bea@example.org'],
      cc: ['cy@example.org'],
    };
    const outcome = await deliverer.deliver(content, undefined);
    expect(outcome).toMatchObject({ event: 'sent', subject: 'Order {{data.order}} shipped' });
    expect(outcome.deliveredCopies).toEqual([
      { email: 'bea@example.org', kind: 'to' },
      { email: 'cy@example.org', kind: 'cc' },
    ]);
    expect(
      envelopes
        .slice(before)
        .map((e) => e.to)
        .sort(),
    ).toEqual(['ann@example.org', 'bea@example.org', 'cy@example.org']);
    for (const raw of sent.slice(before)) {
      const mail = await simpleParser(raw);
      // Handlebars never runs on what the app made: its braces are sent as they are.
      expect(mail.html).toContain('{{user.name}}, it is on its way');
      expect(mail.from).toMatchObject({ value: [{ name: 'Shop Orders', address: 'orders@mail.example.com' }] });
      expect(mail.to).toMatchObject({ value: [{ address: 'ann@example.org' }, { address: 'bea@example.org' }] });
      expect(mail.cc).toMatchObject({ value: [{ address: 'cy@example.org' }] });
      // HTML only: the mail has no text part.
      expect(raw.toString()).not.toContain('text/plain');
    }
    // A From off the sender domain never goes, whatever got it this far.
    const stray = await deliverer.deliver(
      { ...content, _id: `${content._id.slice(0, -1)}f`, content: { ...content.content!, fromEmail: 'x@other.example' } },
      undefined,
    );
    expect(stray).toMatchObject({ event: 'failed', reason: expect.stringContaining('other.example') });
  });

  it('a recipient the relay refuses bounces the message, and the copies it took are named as delivered', async () => {
    const outcome = await deliverer.deliver(
      {
        ...message('receipt', 'p-quiet', { order: 9 }),
        email: 'dead-recipient@example.org',
        cc: ['bo@example.org'],
        bcc: ['archive@example.org'],
      },
      undefined,
    );
    expect(outcome.event).toBe('bounced');
    expect(outcome.deliveredCopies).toEqual([
      { email: 'bo@example.org', kind: 'cc' },
      { email: 'archive@example.org', kind: 'bcc' },
    ]);
  });

  it('a deferred recipient is tried again with the copies the relay turned away for now: those it took are not sent twice, and the Cc header still names them', async () => {
    const deferredOnce = {
      ...message('receipt', 'p-quiet', { order: 10 }),
      email: 'busy-recipient@example.org',
      cc: ['bo@example.org', 'busy-copy@example.org'],
      bcc: ['archive@example.org'],
    };
    const first = await deliverer.deliver(deferredOnce, undefined, 1);
    expect(first.event).toBe('deferred');
    expect(first.deliveredCopies).toEqual([
      { email: 'bo@example.org', kind: 'cc' },
      { email: 'archive@example.org', kind: 'bcc' },
    ]);
    expect(first.droppedCopies).toBeUndefined();
    const before = sent.length;
    const earlier = [
      {
        _id: 'x:2',
        messageId: deferredOnce._id,
        projectId: 'p-quiet',
        event: 'deferred' as const,
        sequence: 2,
        at: new Date(),
        attempt: 1,
        deliveredCopies: first.deliveredCopies!,
      },
    ];
    refusing.delete('busy-recipient@example.org');
    try {
      const second = await deliverer.deliver(deferredOnce, undefined, 2, earlier);
      expect(second.event).toBe('sent');
      expect(envelopes.slice(before).map((e) => e.to)).toEqual(['busy-recipient@example.org', 'busy-copy@example.org']);
      expect(second.deliveredCopies).toBeUndefined();
      // The recipient's mail is sent: a copy still turned away has no next attempt to go with.
      expect(second.droppedCopies).toEqual([{ email: 'busy-copy@example.org', kind: 'cc', reason: 'refused by the relay: 451 451 no' }]);
      const mail = await simpleParser(sent[before]!);
      expect(mail.cc).toMatchObject({ value: [{ address: 'bo@example.org' }, { address: 'busy-copy@example.org' }] });
    } finally {
      refusing.set('busy-recipient@example.org', 451);
    }
  });

  it("a run with one client's heavy messages: the others are sent, the heavy client's hold it no longer than the patience, and their retries wait their turn", async () => {
    const failedByName = { event: 'failed', reason: 'render: the template evaluates more than 50000 helpers and sections in one render' };
    const finished: Array<{ who: string; outcome: Outcome; at: number }> = [];
    const started = performance.now();
    const deliver = (who: string, m: MessageDoc) =>
      deliverer.deliver(m, undefined).then((outcome) => finished.push({ who, outcome, at: performance.now() - started }));
    const heavy = Array.from({ length: 6 }, () => message('heavy', 'p-hostile', hundredItems));
    // As the trigger handler delivers a run: side by side.
    await Promise.all([
      ...heavy.map((m) => deliver('hostile', m)),
      ...Array.from({ length: 8 }, (_, i) => deliver('quiet', message('receipt', 'p-quiet', { order: i }))),
    ]);
    const quiet = finished.filter((f) => f.who === 'quiet');
    const hostile = finished.filter((f) => f.who === 'hostile');
    expect(quiet.every((f) => f.outcome.event === 'sent')).toBe(true);
    // Each took its turn in its client's queue and failed by name, or was deferred once the run's patience was spent.
    for (const { outcome } of hostile) {
      if (outcome.event === 'failed') expect(outcome).toEqual(failedByName);
      else expect(outcome).toMatchObject({ event: 'deferred', reason: expect.stringMatching(/^render: the client's heavy templates /) });
    }
    // No heavy message kept the run waiting longer than the patience a run gives a pool render.
    expect(Math.max(...hostile.map((f) => f.at))).toBeLessThan(PATIENCE_MS + 500);
    // Their retries (the retry worker's: side by side, holding no run) wait their turn, and fail by name.
    const retried = await Promise.all(heavy.map((m) => deliverer.deliver(m, undefined)));
    expect(retried).toEqual(retried.map(() => failedByName));
  });
});

describe('Deliverer: language variants and layouts', () => {
  const sent: Buffer[] = [];
  const relay: Relay = {
    send: (_from: string, _to: string, raw: Buffer) => {
      sent.push(raw);
      return Promise.resolve({ status: 'sent' as const, code: 250, response: '250 OK' });
    },
  };
  const layout = (id: string, version: number, html: string, text: string | null = null): CatalogLayout => ({
    id,
    clientId: 'cl_quiet',
    revision: version,
    projectId: 'p-quiet',
    version,
    html,
    text,
  });
  const variant = (language: string, greeting: string, layoutId: string | null = null) => ({
    language,
    subject: `${greeting} {{user.name}}`,
    html: `<p>${greeting} {{user.name}}</p>`,
    text: null,
    layoutId,
  });
  const greeted = (id: string, changes: Partial<CatalogTemplate>): CatalogTemplate => ({
    ...template(id, 'p-quiet', 'cl_quiet', '<p>Hello {{user.name}}</p>', true),
    subject: 'Hello {{user.name}}',
    ...changes,
  });
  const catalog = catalogOf(
    [
      greeted('greeting', { variants: [variant('de', 'Hallo'), variant('pt', 'Olá'), variant('zh-Hant', '你好')] }),
      greeted('framed', {
        text: 'Hello {{user.name}}',
        layoutId: 'l-brand',
        variants: [variant('de', 'Hallo', 'l-plain'), variant('fr', 'Bonjour', 'l-gone')],
      }),
      greeted('plain', {}),
      // Published again (revision 3) as an older version: a rollback.
      greeted('rolled-back', { version: 1, revision: 3, variants: [variant('de', 'Hallo')] }),
    ],
    [
      layout('l-brand', 2, '<div class="brand">{{{content}}}<p>Brand for {{user.name}}</p></div>', 'BRAND\n{{{content}}}'),
      layout('l-plain', 1, '<main>{{{content}}}</main>'),
    ],
  );
  /** Who the fake users service was asked about, and the languages its profiles give. */
  const asked: Array<{ projectId: string; userId: string | null; email: string }> = [];
  const stored = new Map([['uid-de', 'de-CH']]);
  const profiles: ProfileLanguages = {
    languageOf: (projectId, user) => {
      asked.push({ projectId, ...user });
      return Promise.resolve(user.userId !== null ? (stored.get(user.userId) ?? null) : null);
    },
  };
  let engine: TemplateEngine;
  let deliverer: Deliverer;
  /** A deliverer reading `from`, waiting `catalogWaitMs` for what it lacks. */
  const delivererOf = (from: CatalogLookup, catalogWaitMs: number) =>
    new Deliverer({
      catalog: from,
      secrets,
      tokens: new TrackingTokens(randomBytes(32).toString('hex')),
      returnPath: new ReturnPathTokens(randomBytes(32).toString('hex')),
      relay,
      suppressionsOf: (_projectId, addresses) => Promise.resolve(addresses.map(() => undefined)),
      publicBaseUrl: 'https://pb.example.com',
      catalogWaitMs,
      profiles,
      templates: engine,
      runPatienceMs: PATIENCE_MS,
      attachments: { read: () => Promise.resolve(null) },
      turns: new LoopTurns(10),
    });

  beforeAll(() => {
    engine = new TemplateEngine({ threads: 1, poolTimeMs: 10_000, maxWaitMs: 30_000 });
    deliverer = delivererOf(catalog, 0);
  });

  afterAll(async () => {
    await engine.close();
  });

  beforeEach(() => {
    asked.length = 0;
  });

  const send = async (templateId: string, changes: Partial<MessageDoc> = {}) => {
    const before = sent.length;
    const outcome = await deliverer.deliver({ ...message(templateId, 'p-quiet'), ...changes }, undefined);
    return { outcome, mail: sent.length > before ? await simpleParser(sent[before]!) : undefined };
  };

  it("renders the variant the send names, else the one of the trigger's user, matching the exact tag (any case), then its primary subtag, and names it", async () => {
    expect((await send('greeting', { language: 'DE' })).outcome).toMatchObject({ event: 'sent', subject: 'Hallo Ann', language: 'de' });
    expect((await send('greeting', { language: 'zh-hant' })).outcome).toMatchObject({ subject: '你好 Ann', language: 'zh-Hant' });
    const { outcome, mail } = await send('greeting', { user: { email: 'ann@example.org', name: 'Ann', language: 'pt-BR' } });
    expect(outcome).toMatchObject({ event: 'sent', subject: 'Olá Ann', language: 'pt' });
    expect(mail?.html).toBe('<p>Olá Ann</p>');
    // The send's language wins over the user's.
    const both = await send('greeting', { language: 'de', user: { email: 'ann@example.org', name: 'Ann', language: 'pt' } });
    expect(both.outcome).toMatchObject({ subject: 'Hallo Ann', language: 'de' });
    expect(asked).toEqual([]);
  });

  it('renders the default for a language no variant has, and names none', async () => {
    const { outcome, mail } = await send('greeting', { language: 'fr-CA' });
    expect(outcome).toMatchObject({ event: 'sent', subject: 'Hello Ann' });
    expect(outcome).not.toHaveProperty('language');
    expect(mail?.html).toBe('<p>Hello Ann</p>');
    expect(asked).toEqual([]);
  });

  it("asks the stored profile only when neither the send nor the trigger's user says a language, by user_id, else by address", async () => {
    const byUserId = await send('greeting', { userId: 'uid-de', user: { email: 'ann@example.org', user_id: 'uid-de', name: 'Ann' } });
    expect(byUserId.outcome).toMatchObject({ subject: 'Hallo Ann', language: 'de' });
    const unknown = await send('greeting');
    expect(unknown.outcome).toMatchObject({ event: 'sent', subject: 'Hello Ann' });
    expect(unknown.outcome).not.toHaveProperty('language');
    expect(asked).toEqual([
      { projectId: 'p-quiet', userId: 'uid-de', email: 'ann@example.org' },
      { projectId: 'p-quiet', userId: null, email: 'ann@example.org' },
    ]);
    // A trigger whose user has no language (null) says so: the default, nothing asked.
    asked.length = 0;
    expect((await send('greeting', { user: { email: 'ann@example.org', name: 'Ann', language: null } })).outcome).toMatchObject({
      subject: 'Hello Ann',
    });
    expect(asked).toEqual([]);
  });

  it('a template without variants asks no profile, whatever the send says', async () => {
    expect((await send('plain')).outcome).toMatchObject({ event: 'sent', subject: 'Hello Ann' });
    const named = await send('plain', { language: 'de' });
    expect(named.outcome).toMatchObject({ event: 'sent', subject: 'Hello Ann' });
    expect(named.outcome).not.toHaveProperty('language');
    expect(asked).toEqual([]);
  });

  it("puts the default's body in the template's layout, and a variant's in the variant's own, each reading the same user", async () => {
    const framed = await send('framed', { language: 'it' });
    expect(framed.outcome).toMatchObject({ event: 'sent', subject: 'Hello Ann' });
    expect(framed.mail?.html).toBe('<div class="brand"><p>Hello Ann</p><p>Brand for Ann</p></div>');
    expect(framed.mail?.text).toBe('BRAND\nHello Ann');
    const german = await send('framed', { language: 'de' });
    expect(german.outcome).toMatchObject({ event: 'sent', language: 'de' });
    expect(german.mail?.html).toBe('<main><p>Hallo Ann</p></main>');
    // Without a text part of its own, the mail's text is the whole HTML's.
    expect(german.mail?.text).toBe('Hallo Ann');
  });

  it('fails a message whose layout is not in the catalog (after the catalog wait), sending nothing', async () => {
    const before = sent.length;
    expect((await send('framed', { language: 'fr' })).outcome).toEqual({ event: 'failed', reason: 'catalog: the layout does not exist' });
    expect(sent.length).toBe(before);
  });

  it('asks the profile once while it waits for a layout still on its way, then renders in it', async () => {
    const late = new Map<string, CatalogLayout>();
    const waiting = delivererOf(
      { get: (kind, id) => (kind === 'layout' && late.has(id) ? Promise.resolve(late.get(id)) : catalog.get(kind, id)) } as CatalogLookup,
      5_000,
    );
    setTimeout(() => late.set('l-gone', layout('l-gone', 1, '<section>{{{content}}}</section>')), 500);
    stored.set('uid-fr', 'fr');
    const before = sent.length;
    const outcome = await waiting.deliver(
      { ...message('framed', 'p-quiet'), userId: 'uid-fr', user: { email: 'ann@example.org', user_id: 'uid-fr', name: 'Ann' } },
      undefined,
    );
    expect(outcome).toMatchObject({ event: 'sent', subject: 'Bonjour Ann', language: 'fr' });
    expect((await simpleParser(sent[before]!)).html).toBe('<section><p>Bonjour Ann</p></section>');
    expect(asked).toEqual([{ projectId: 'p-quiet', userId: 'uid-fr', email: 'ann@example.org' }]);
  });

  it("waits for the template's revision when the trigger names one: a rollback's version is older, its revision newer", async () => {
    const rolledBack = await send('rolled-back', { templateVersion: 2, templateRevision: 3, language: 'de' });
    expect(rolledBack.outcome).toMatchObject({ event: 'sent', subject: 'Hallo Ann', language: 'de' });
    expect((await send('rolled-back', { templateVersion: 1, templateRevision: 4 })).outcome).toEqual({
      event: 'failed',
      reason: 'catalog: the template does not exist',
    });
    // Without a revision, the version it names is what the projection must have.
    expect((await send('rolled-back', { templateVersion: 2 })).outcome).toEqual({
      event: 'failed',
      reason: 'catalog: the template does not exist',
    });
  });
});
