/**
 * The status service's public face: the HTML page (and its operator view), the Statuspage API v2
 * JSON, Atom/RSS feeds, SVG badges and subscriptions (webhooks, email with double opt-in).
 *
 * How the engine mounts it (see services/status/PUBLISHING.md):
 *
 *   const publishing = publicRouter(engine, {
 *     baseUrl: config.STATUS_BASE_URL,            // absolute, no trailing slash: links in pages, feeds, mails
 *     operatorToken: config.STATUS_OPERATOR_TOKEN, // unlocks /operator (Bearer, or Basic with the token as password)
 *     subscribers: new MongoSubscriberStore(connection, new SecretBox(config.STATUS_SECRETS_KEY)), // webhook secrets sealed at rest
 *     tokenSecret: config.STATUS_SUBSCRIPTION_SECRET, // signs confirm/unsubscribe links (≥ 16 chars)
 *     smtpUrl: config.STATUS_SMTP_URL,            // a relay separate from Postbus's own; no email subscriptions without it
 *     mailFrom: config.STATUS_MAIL_FROM,
 *     allowedWebhookHosts: config.STATUS_WEBHOOK_ALLOWED_HOSTS.split(','), // hosts admitted although private, on their ports
 *     limits: subscriptionLimits(config),           // rates, the size of the list, unconfirmed expiry, confirmation resends
 *     outboxFile: outboxPathFor(config.STATUS_SNAPSHOT_FILE), // pending notifications, kept across restarts (subscriptions/notifier.ts)
 *     logger,
 *   });
 *   app.use(publishing);
 *   // on shutdown:
 *   await publishing.stop();
 *
 * Everything is answered from `source.snapshot()` (memory): the page stays up whatever else is down.
 * The notifications (outbox, SMTP mailer, the subscribers last read) are the `Notifier`'s
 * (`subscriptions/notifier.ts`); the router starts and stops it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { lookup as dnsLookup } from 'node:dns';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type Response, type Router } from 'express';
import {
  AppError,
  ConflictError,
  MalformedRequestError,
  PayloadTooLargeError,
  problemFor,
  TooManyRequestsError,
  ValidationError,
} from '@postbus/errors';
import { AddressPolicy, every } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { StatusSnapshot, StatusSource } from '../domain/model';
import { atomFeed, componentBadge, overallBadge, rssFeed } from '../publish/feeds';
import { escapeHtml, HTML_CSP, renderHistoryPage, renderIncidentPage, renderMessagePage, renderStatusPage } from '../publish/html';
import { StatuspageView } from '../publish/statuspage';
import type { Subscriber, SubscriberStore } from '../model/subscriber.repository';
import { Notifier } from '../subscriptions/notifier';
import { SubscriptionTokens } from '../subscriptions/tokens';
import { clientKey, DEFAULT_SUBSCRIPTION_LIMITS, TokenBuckets, type SubscriptionLimits } from '../subscriptions/limits';
import { webhookUrlProblems } from '../subscriptions/webhook-url';
import { subscriberAdmin } from './subscriber-admin';

export interface PublicRouterOptions {
  /** The page's public address, e.g. `https://status.example.com` (links in pages, feeds and mails). */
  baseUrl: string;
  /** Unlocks the operator view; without it there is none. */
  operatorToken?: string;
  subscribers: SubscriberStore;
  /** Signs the confirm and unsubscribe links. */
  tokenSecret: string;
  /** STATUS_SMTP_URL; without it email subscription is refused (503). */
  smtpUrl?: string;
  mailFrom?: string;
  /** Admit webhooks to every address and port, private and loopback included (tests, closed networks). */
  allowPrivateWebhooks?: boolean;
  /**
   * Hosts a webhook may name although they are, or resolve to, private addresses, and on ports
   * other than 80 and 443: `host` (every port), `host:port` or `host:first-last`.
   */
  allowedWebhookHosts?: string[];
  /** Resolves webhook hosts (dns.lookup by default; tests pass a table). */
  webhookResolver?: typeof dnsLookup;
  /** Subscription rates, the size of the list, unconfirmed expiry and confirmation resends; DEFAULT_SUBSCRIPTION_LIMITS for what is not given. */
  limits?: Partial<SubscriptionLimits>;
  /** How often unconfirmed subscribers past their time are removed; a quarter of that time, at most 10 minutes, by default. */
  sweepIntervalMs?: number;
  /** Milliseconds before each attempt of a notification (webhook or mail); Standard Webhooks' schedule by default. */
  webhookRetryScheduleMs?: number[];
  /** Where pending notifications and their retries are kept across restarts; in memory only without it. */
  outboxFile?: string;
  /** While the subscribers cannot be read (the database is down), notifications wait this long between tries; 5 s by default. */
  lookupRetryMs?: number;
  /** How long a confirmation link works; as long as an unconfirmed subscriber is kept by default, and never longer. */
  confirmTtlMs?: number;
  logger?: Logger;
}

export type PublicRouter = Router & {
  /** Stops listening to the source and sending (what is pending stays in the outbox file), closes the SMTP transport. */
  stop(): Promise<void>;
  /** Resolves when the notifications of every event so far have been handed on, and every confirmation mail started so far has been sent or has failed (tests wait on it). */
  idle(): Promise<void>;
};

const MAX_AGE = 'max-age=15';

const queryToken = (req: Request): string => (typeof req.query.token === 'string' ? req.query.token : '');
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

const API_ROUTES: Record<string, (view: StatuspageView) => object> = {
  'summary.json': (view) => view.summary(),
  'status.json': (view) => view.status(),
  'components.json': (view) => ({ page: view.page(), components: view.components() }),
  'incidents.json': (view) => ({ page: view.page(), incidents: view.incidents('all') }),
  'incidents/unresolved.json': (view) => ({ page: view.page(), incidents: view.incidents('unresolved') }),
  'scheduled-maintenances.json': (view) => ({ page: view.page(), scheduled_maintenances: view.maintenances('all') }),
  'scheduled-maintenances/upcoming.json': (view) => ({ page: view.page(), scheduled_maintenances: view.maintenances('upcoming') }),
  'scheduled-maintenances/active.json': (view) => ({ page: view.page(), scheduled_maintenances: view.maintenances('active') }),
};

export function publicRouter(source: StatusSource, options: PublicRouterOptions): PublicRouter {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const tokens = new SubscriptionTokens(options.tokenSecret);
  const policy = options.allowPrivateWebhooks
    ? undefined
    : new AddressPolicy((options.allowedWebhookHosts ?? []).map((h) => h.trim()).filter(Boolean), options.webhookResolver, {
        setting: 'STATUS_WEBHOOK_ALLOWED_HOSTS',
      });
  const limits: SubscriptionLimits = { ...DEFAULT_SUBSCRIPTION_LIMITS, ...options.limits };
  const confirmTtlMs = Math.min(options.confirmTtlMs ?? limits.unconfirmedTtlMs, limits.unconfirmedTtlMs);
  const unsubscribeUrl = (subscriber: Pick<Subscriber, 'id'>) =>
    `${baseUrl}/subscriptions/unsubscribe?token=${tokens.issue('unsubscribe', subscriber.id)}`;
  const notifier = new Notifier(source, {
    subscribers: options.subscribers,
    baseUrl,
    unsubscribeUrl,
    policy,
    smtpUrl: options.smtpUrl,
    mailFrom: options.mailFrom,
    retryScheduleMs: options.webhookRetryScheduleMs,
    outboxFile: options.outboxFile,
    lookupRetryMs: options.lookupRetryMs,
    logger: options.logger,
  });

  const router = express.Router() as PublicRouter;
  router.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });

  /**
   * Answers from the snapshot with a short shared cache: the ETag is the snapshot's version and the
   * route (and view), so a reader polling every few seconds mostly gets 304.
   */
  const cached = (
    req: Request,
    res: Response,
    snapshot: StatusSnapshot,
    type: string,
    scope: 'public' | 'private',
    render: () => string,
  ) => {
    const tag = `"${snapshot.version}-${createHash('sha256').update(`${scope}:${req.path}`).digest('base64url').slice(0, 16)}"`;
    res.setHeader('Cache-Control', `${scope}, ${MAX_AGE}`);
    res.setHeader('ETag', tag);
    res.setHeader('Vary', 'Authorization');
    const match = req.get('If-None-Match');
    if (match && match.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === tag || candidate.trim() === '*')) {
      res.status(304).end();
      return;
    }
    res.type(type).send(render());
  };

  const html = (res: Response, status: number, body: string) => {
    res.setHeader('Content-Security-Policy', HTML_CSP);
    res.status(status).type('html').send(body);
  };

  const isOperator = (req: Request): boolean => {
    if (!options.operatorToken) return false;
    const header = req.get('Authorization') ?? '';
    let given = '';
    if (header.startsWith('Bearer ')) given = header.slice(7);
    else if (header.startsWith('Basic ')) given = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':').slice(1).join(':');
    const a = createHash('sha256').update(given).digest();
    const b = createHash('sha256').update(options.operatorToken).digest();
    return given !== '' && timingSafeEqual(a, b);
  };

  const page = (view: 'public' | 'operator') => (req: Request, res: Response) => {
    if (view === 'operator' && !isOperator(req)) {
      if (!options.operatorToken) return void res.status(404).type('text').send('Not found');
      res.setHeader('WWW-Authenticate', 'Basic realm="status operators", charset="UTF-8"');
      return void res.status(401).type('text').send('The operator view needs the operator token.');
    }
    const snapshot = source.snapshot();
    res.setHeader('Content-Security-Policy', HTML_CSP);
    cached(req, res, snapshot, 'html', view === 'operator' ? 'private' : 'public', () => renderStatusPage(snapshot, { baseUrl, view }));
  };

  router.get('/', (req, res) => page(req.query.view === 'operator' ? 'operator' : 'public')(req, res));
  router.get('/operator', page('operator'));

  router.get('/history', (req, res) => {
    const snapshot = source.snapshot();
    res.setHeader('Content-Security-Policy', HTML_CSP);
    cached(req, res, snapshot, 'html', 'public', () => renderHistoryPage(snapshot, { baseUrl }));
  });

  router.get('/incidents/:id', (req, res) => {
    const snapshot = source.snapshot();
    const id = String(req.params.id);
    const item = snapshot.incidents.find((incident) => incident.id === id) ?? snapshot.maintenances.find((m) => m.id === id);
    if (!item) return html(res, 404, renderMessagePage(snapshot, 'Not found', 'There is no incident with this id.', { baseUrl }));
    res.setHeader('Content-Security-Policy', HTML_CSP);
    cached(req, res, snapshot, 'html', 'public', () => renderIncidentPage(snapshot, item, { baseUrl }));
  });

  router.get('/history.atom', (req, res) => {
    const snapshot = source.snapshot();
    cached(req, res, snapshot, 'application/atom+xml; charset=utf-8', 'public', () => atomFeed(snapshot, baseUrl));
  });
  router.get('/history.rss', (req, res) => {
    const snapshot = source.snapshot();
    cached(req, res, snapshot, 'application/rss+xml; charset=utf-8', 'public', () => rssFeed(snapshot, baseUrl));
  });

  const svg = (res: Response) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    // A badge is an image embedded elsewhere; nothing in it may run.
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
  };
  router.get('/badge.svg', (req, res) => {
    const snapshot = source.snapshot();
    svg(res);
    cached(req, res, snapshot, 'image/svg+xml; charset=utf-8', 'public', () => overallBadge(snapshot));
  });
  router.get('/badge/:file', (req, res) => {
    const file = String(req.params.file);
    const snapshot = source.snapshot();
    const body = file.endsWith('.svg') ? componentBadge(snapshot, file.slice(0, -4)) : undefined;
    if (body === undefined) return void res.status(404).type('text').send('No such component');
    svg(res);
    cached(req, res, snapshot, 'image/svg+xml; charset=utf-8', 'public', () => body);
  });

  for (const [route, build] of Object.entries(API_ROUTES)) {
    router.get(`/api/v2/${route}`, (req, res) => {
      const snapshot = source.snapshot();
      res.setHeader('Access-Control-Allow-Origin', '*');
      cached(req, res, snapshot, 'application/json; charset=utf-8', 'public', () =>
        JSON.stringify(build(new StatuspageView(snapshot, baseUrl))),
      );
    });
  }

  // ---- Subscriptions --------------------------------------------------------------------------

  const perClient = new TokenBuckets(limits.perClient, limits.windowMs);
  const everyone = new TokenBuckets(limits.global, limits.windowMs);
  const minutes = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.ceil(ms / 1000)} s`);

  /** A 429 when this client, or everyone together, has subscribed as often as the window allows. */
  const overRate = (req: Request): TooManyRequestsError | undefined => {
    const mine = perClient.take(clientKey(req.ip ?? req.socket.remoteAddress));
    const wait = mine > 0 ? mine : everyone.take('all');
    if (wait === 0) return undefined;
    const seconds = Math.ceil(wait / 1000);
    return new TooManyRequestsError(
      mine > 0
        ? `An address may subscribe ${limits.perClient} times in ${minutes(limits.windowMs)}; retry after ${seconds} s.`
        : `This page takes ${limits.global} subscriptions in ${minutes(limits.windowMs)} from everyone together; retry after ${seconds} s.`,
      seconds,
    );
  };
  const limitSubscriptions = (req: Request, _res: Response, next: NextFunction) => next(overRate(req));

  /** Refuses a new subscription once the list holds as many as it keeps (whoever asks: the answer tells nothing about an address). */
  const assertRoom = async (): Promise<void> => {
    if ((await options.subscribers.count()) < limits.maxSubscribers) return;
    throw new ConflictError('subscriptions-full', 'This page has as many subscribers as it keeps; try again later.');
  };

  const isExpired = (subscriber: Subscriber, now: number) =>
    subscriber.confirmedAt === null && subscriber.createdAt.getTime() <= now - limits.unconfirmedTtlMs;

  /** Sent after the answer, not before (see Notifier.sendConfirmation). */
  const sendConfirmation = (subscriberId: string, address: string) => {
    const token = tokens.issue('confirm', subscriberId, confirmTtlMs);
    notifier.sendConfirmation(subscriberId, address, `${baseUrl}/subscriptions/confirm?token=${encodeURIComponent(token)}`);
  };

  /**
   * Starts an email subscription: a confirmation mail, and nothing else until it is confirmed. The
   * answer is the same whether the address was new, waiting for its confirmation (and mailed
   * again only once `confirmationResendMs` has passed, so the form cannot flood a mailbox) or
   * confirmed already.
   */
  const subscribeEmail = async (raw: unknown, pointer: string): Promise<void> => {
    const address = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
    if (address.length > 254 || !EMAIL.test(address))
      throw new ValidationError('The email address is invalid.', [{ pointer, message: 'is not an email address' }]);
    if (!notifier.mailer)
      throw new AppError(
        503,
        'email-subscriptions-unavailable',
        'Email subscriptions are not available',
        'This page does not offer email subscriptions.',
      );
    await assertRoom();
    const now = new Date();
    const candidate = { kind: 'email' as const, address, secret: null, confirmedAt: null };
    let subscriber = await options.subscribers.add(candidate, now);
    if (isExpired(subscriber, now.getTime())) {
      await options.subscribers.remove(subscriber.id);
      subscriber = await options.subscribers.add(candidate, now);
    }
    if (subscriber.confirmedAt) return;
    const claimed = await options.subscribers.claimConfirmation(subscriber.id, now, new Date(now.getTime() - limits.confirmationResendMs));
    if (claimed) sendConfirmation(subscriber.id, address);
  };

  /** Subscribes a webhook: its URL checked (port, scheme, and every address it names or resolves to), its secret shown once. */
  const subscribeWebhook = async (raw: unknown, pointer: string) => {
    const { url, problems } = await webhookUrlProblems(typeof raw === 'string' ? raw : '', policy);
    if (!url)
      throw new ValidationError(
        'The webhook URL cannot be subscribed.',
        problems.map((message) => ({ pointer, message })),
      );
    await assertRoom();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const subscriber = await options.subscribers.add(
      { kind: 'webhook', address: url.toString(), secret, confirmedAt: new Date() },
      new Date(),
    );
    // The secret is shown once, to whoever created the subscription; a second subscribe of the same URL does not get it.
    if (subscriber.secret !== secret) throw new ConflictError('already-subscribed', 'This webhook is already subscribed.');
    options.logger?.info('status webhook subscribed', { subscriberId: subscriber.id });
    return { id: subscriber.id, webhook: subscriber.address, secret, unsubscribe_url: unsubscribeUrl(subscriber) };
  };

  /**
   * Problems as problem+json, here rather than in the app's handler so the routes answer the same
   * wherever they are mounted. On the public endpoint `error` carries the reason as one string as
   * well: that is the member its clients read.
   */
  const subscriptionProblems =
    ({ legacyError }: { legacyError: boolean }): ErrorRequestHandler =>
    (error: unknown, req, res, next) => {
      if (res.headersSent) return next(error);
      const parserType = (error as { type?: unknown } | null)?.type;
      const known =
        parserType === 'entity.too.large'
          ? new PayloadTooLargeError('8kb')
          : typeof parserType === 'string' && parserType.startsWith('entity.')
            ? new MalformedRequestError('The body is not valid JSON.')
            : error;
      const { problem, headers } = problemFor(known, req.requestId);
      if (problem.status >= 500 && !(known instanceof AppError))
        options.logger?.error('a subscription request failed', { error, requestId: req.requestId, path: req.path });
      const body = legacyError
        ? { ...problem, error: problem.errors?.map((e) => e.message).join('; ') ?? problem.detail ?? problem.title }
        : problem;
      res.status(problem.status).set(headers).type('application/problem+json').send(JSON.stringify(body));
    };

  const jsonBody = express.json({ limit: '8kb' });
  const formBody = express.urlencoded({ extended: false, limit: '8kb' });

  router.post(
    '/api/v2/subscribers',
    limitSubscriptions,
    jsonBody,
    async (req: Request, res: Response) => {
      const body = (req.body && typeof req.body === 'object' ? req.body : {}) as {
        email?: unknown;
        webhook?: unknown;
        subscriber?: { email?: unknown; endpoint?: unknown };
      };
      // Statuspage nests under `subscriber` ({"subscriber": {"email"}} / {"endpoint"}); the flat form is accepted too.
      const nested = body.subscriber && typeof body.subscriber === 'object' ? body.subscriber : {};
      if (body.email !== undefined || nested.email !== undefined) {
        await subscribeEmail(body.email ?? nested.email, body.email !== undefined ? '/email' : '/subscriber/email');
        return void res.status(202).json({ status: 'confirmation_sent' });
      }
      if (body.webhook !== undefined || nested.endpoint !== undefined) {
        const created = await subscribeWebhook(
          body.webhook ?? nested.endpoint,
          body.webhook !== undefined ? '/webhook' : '/subscriber/endpoint',
        );
        return void res.status(201).json(created);
      }
      throw new ValidationError('Send {"email": "…"} or {"webhook": "https://…"}.', [
        { pointer: '/', message: 'names no email or webhook' },
      ]);
    },
    subscriptionProblems({ legacyError: true }),
  );

  router.use(
    subscriberAdmin({
      subscribers: options.subscribers,
      unconfirmedTtlMs: limits.unconfirmedTtlMs,
      ...(options.operatorToken ? { operatorToken: options.operatorToken } : {}),
    }),
  );
  router.use('/api/operator/subscribers', subscriptionProblems({ legacyError: false }));

  router.post('/subscribe', formBody, async (req, res) => {
    const snapshot = source.snapshot();
    const page = (status: number, title: string, text: string) => html(res, status, renderMessagePage(snapshot, title, text, { baseUrl }));
    const tooMany = overRate(req);
    if (tooMany) {
      res.set(tooMany.headers);
      return page(429, 'Too many subscriptions', `${tooMany.message.replace(/; retry after.*$/, '')}. Try again in a while.`);
    }
    const form = (req.body ?? {}) as { email?: unknown };
    try {
      await subscribeEmail(typeof form.email === 'string' ? form.email : '', '/email');
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      res.set(error.headers);
      if (error instanceof ValidationError) return page(400, 'Not subscribed', 'That does not look like an email address.');
      if (error.slug === 'email-subscriptions-unavailable')
        return page(503, 'Not available', 'Email subscriptions are not configured on this page.');
      if (error.slug === 'subscriptions-full')
        return page(409, 'Not subscribed', 'This page has as many subscribers as it keeps; try again later.');
      return page(error.status, 'Not subscribed', 'Subscribing is not possible right now; try again later.');
    }
    page(200, 'Check your mail', 'We sent a link to confirm your subscription. Nothing else is sent until you confirm.');
  });

  // A GET only shows a button: mail scanners open links, and must not confirm or unsubscribe anyone.
  const confirmForm = (action: string, token: string, label: string) =>
    `<form method="post" action="${escapeHtml(`${baseUrl}${action}?token=${encodeURIComponent(token)}`)}"><button type="submit">${escapeHtml(label)}</button></form>`;

  router.get('/subscriptions/confirm', (req, res) => {
    const snapshot = source.snapshot();
    const token = queryToken(req);
    if (!tokens.verify(token, 'confirm'))
      return html(
        res,
        400,
        renderMessagePage(snapshot, 'Link expired', 'This confirmation link is invalid or expired; subscribe again.', { baseUrl }),
      );
    html(
      res,
      200,
      renderMessagePage(
        snapshot,
        'Confirm subscription',
        'Confirm that you want mails about incidents and maintenance.',
        { baseUrl },
        confirmForm('/subscriptions/confirm', token, 'Confirm'),
      ),
    );
  });

  router.post('/subscriptions/confirm', formBody, async (req, res) => {
    const snapshot = source.snapshot();
    const id = tokens.verify(queryToken(req), 'confirm');
    let subscriber = id ? await options.subscribers.findById(id) : null;
    if (subscriber && isExpired(subscriber, Date.now())) {
      await options.subscribers.remove(subscriber.id);
      subscriber = null;
    }
    if (!subscriber)
      return html(
        res,
        400,
        renderMessagePage(snapshot, 'Link expired', 'This confirmation link is invalid or expired; subscribe again.', { baseUrl }),
      );
    await options.subscribers.confirm(subscriber.id, new Date());
    options.logger?.info('status email subscription confirmed', { subscriberId: subscriber.id });
    html(
      res,
      200,
      renderMessagePage(
        snapshot,
        'Subscribed',
        'You will get a mail when an incident or maintenance is posted. Each mail has an unsubscribe link.',
        { baseUrl },
      ),
    );
  });

  router.get('/subscriptions/unsubscribe', (req, res) => {
    const snapshot = source.snapshot();
    const token = queryToken(req);
    if (!tokens.verify(token, 'unsubscribe'))
      return html(res, 400, renderMessagePage(snapshot, 'Invalid link', 'This unsubscribe link is not valid.', { baseUrl }));
    html(
      res,
      200,
      renderMessagePage(
        snapshot,
        'Unsubscribe',
        'Stop the notifications from this page?',
        { baseUrl },
        confirmForm('/subscriptions/unsubscribe', token, 'Unsubscribe'),
      ),
    );
  });

  // Also the RFC 8058 one-click target (List-Unsubscribe-Post): mail clients POST here directly.
  router.post('/subscriptions/unsubscribe', formBody, async (req, res) => {
    const snapshot = source.snapshot();
    const id = tokens.verify(queryToken(req), 'unsubscribe');
    if (!id) return html(res, 400, renderMessagePage(snapshot, 'Invalid link', 'This unsubscribe link is not valid.', { baseUrl }));
    await options.subscribers.remove(id);
    options.logger?.info('status subscriber unsubscribed', { subscriberId: id });
    html(res, 200, renderMessagePage(snapshot, 'Unsubscribed', 'You will get no more notifications from this page.', { baseUrl }));
  });

  /** Unconfirmed subscribers past their time are removed by this timer: FerretDB has no TTL indexes. */
  const sweeper = every(
    options.sweepIntervalMs ?? Math.max(1_000, Math.min(limits.unconfirmedTtlMs / 4, 10 * 60_000)),
    async () => {
      const removed = await options.subscribers.removeUnconfirmed(new Date(Date.now() - limits.unconfirmedTtlMs));
      if (removed > 0) options.logger?.info('unconfirmed status subscribers expired', { count: removed });
    },
    {
      onError: (error) =>
        options.logger?.debug('unconfirmed status subscribers could not be swept now', { error: (error as Error).message }),
    },
  );

  router.idle = () => notifier.idle();
  router.stop = () => notifier.stop(() => sweeper.stop());
  return router;
}
