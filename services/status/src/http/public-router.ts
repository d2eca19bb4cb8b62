/**
 * The status service's public face, as HTTP routes: the HTML page (and its operator view), the
 * Statuspage API v2 JSON, Atom/RSS feeds, SVG badges and the subscription endpoints (webhooks,
 * email with double opt-in). Routes only: they parse the request, ask the snapshot or the
 * subscription rules (`domain/subscriptions.ts`), and shape the answer. The notifications (outbox,
 * SMTP mailer, subscribers last read) are the `Notifier`'s (`domain/notifier.ts`);
 * `start/publishing.ts` wires both (`statusPublishing()`), see services/status/PUBLISHING.md.
 *
 * Everything is answered from `source.snapshot()` (memory): the page stays up whatever else is down.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type Response, type Router } from 'express';
import { AppError, MalformedRequestError, PayloadTooLargeError, problemFor, ValidationError } from '@postbus/errors';
import type { Logger } from '@postbus/logger';
import type { StatusSnapshot, StatusSource } from '../domain/model';
import { StatuspageView } from '../domain/statuspage';
import type { Subscriptions } from '../domain/subscriptions';
import type { SubscriberStore } from '../domain/ports';
import { atomFeed, componentBadge, overallBadge, rssFeed } from './feeds';
import { escapeHtml, HTML_CSP, renderHistoryPage, renderIncidentPage, renderMessagePage, renderStatusPage } from './html';
import { subscriberAdmin } from './subscriber-admin';

export interface PublicRouterOptions {
  /** The page's public address, e.g. `https://status.example.com` (links in pages and feeds). */
  baseUrl: string;
  /** Unlocks the operator view; without it there is none. */
  operatorToken?: string | undefined;
  /** The subscription rules the subscription endpoints answer with. */
  subscriptions: Subscriptions;
  /** The subscribers, for the operator's list (`/api/operator/subscribers`). */
  subscribers: SubscriberStore;
  logger?: Logger | undefined;
}

const MAX_AGE = 'max-age=15';

const queryToken = (req: Request): string => (typeof req.query.token === 'string' ? req.query.token : '');

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

export function publicRouter(source: StatusSource, options: PublicRouterOptions): Router {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const { subscriptions } = options;

  const router = express.Router();
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

  /** A page that only says something (and may hold a form): errors, confirmations. */
  const messagePage = (res: Response, snapshot: StatusSnapshot, status: number, title: string, text: string, form?: string) =>
    html(res, status, renderMessagePage(snapshot, title, text, { baseUrl }, form));

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
    if (!item) return messagePage(res, snapshot, 404, 'Not found', 'There is no incident with this id.');
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

  /** A 429 when this client, or everyone together, has subscribed as often as the window allows. */
  const overRate = (req: Request) => subscriptions.overRate(req.ip ?? req.socket.remoteAddress);
  const limitSubscriptions = (req: Request, _res: Response, next: NextFunction) => next(overRate(req));

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
        await subscriptions.subscribeEmail(body.email ?? nested.email, body.email !== undefined ? '/email' : '/subscriber/email');
        return void res.status(202).json({ status: 'confirmation_sent' });
      }
      if (body.webhook !== undefined || nested.endpoint !== undefined) {
        const created = await subscriptions.subscribeWebhook(
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
      unconfirmedTtlMs: subscriptions.limits.unconfirmedTtlMs,
      ...(options.operatorToken ? { operatorToken: options.operatorToken } : {}),
    }),
  );
  router.use('/api/operator/subscribers', subscriptionProblems({ legacyError: false }));

  router.post('/subscribe', formBody, async (req, res) => {
    const snapshot = source.snapshot();
    const page = (status: number, title: string, text: string) => messagePage(res, snapshot, status, title, text);
    const tooMany = overRate(req);
    if (tooMany) {
      res.set(tooMany.headers);
      return page(429, 'Too many subscriptions', `${tooMany.message.replace(/; retry after.*$/, '')}. Try again in a while.`);
    }
    const form = (req.body ?? {}) as { email?: unknown };
    try {
      await subscriptions.subscribeEmail(typeof form.email === 'string' ? form.email : '', '/email');
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

  /**
   * The two routes of a link mailed to a subscriber (`/subscriptions/<action>?token=…`). A GET only
   * shows a button: mail scanners open links, and must not confirm or unsubscribe anyone. The POST
   * the button sends acts, and answers `invalid` (400) when the token does not hold.
   */
  const subscriptionLink = (
    action: 'confirm' | 'unsubscribe',
    act: (token: string) => Promise<boolean>,
    pages: {
      invalid: [title: string, text: string];
      ask: [title: string, text: string, button: string];
      done: [title: string, text: string];
    },
  ) => {
    const path = `/subscriptions/${action}`;
    router.get(path, (req, res) => {
      const snapshot = source.snapshot();
      const token = queryToken(req);
      if (!subscriptions.verifyLink(token, action)) return messagePage(res, snapshot, 400, ...pages.invalid);
      const [title, text, button] = pages.ask;
      const form = `<form method="post" action="${escapeHtml(`${baseUrl}${path}?token=${encodeURIComponent(token)}`)}"><button type="submit">${escapeHtml(button)}</button></form>`;
      messagePage(res, snapshot, 200, title, text, form);
    });
    router.post(path, formBody, async (req, res) => {
      const snapshot = source.snapshot();
      if (!(await act(queryToken(req)))) return messagePage(res, snapshot, 400, ...pages.invalid);
      messagePage(res, snapshot, 200, ...pages.done);
    });
  };

  subscriptionLink('confirm', (token) => subscriptions.confirm(token), {
    invalid: ['Link expired', 'This confirmation link is invalid or expired; subscribe again.'],
    ask: ['Confirm subscription', 'Confirm that you want mails about incidents and maintenance.', 'Confirm'],
    done: ['Subscribed', 'You will get a mail when an incident or maintenance is posted. Each mail has an unsubscribe link.'],
  });
  // The POST is also the RFC 8058 one-click target (List-Unsubscribe-Post): mail clients POST there directly.
  subscriptionLink('unsubscribe', (token) => subscriptions.unsubscribe(token), {
    invalid: ['Invalid link', 'This unsubscribe link is not valid.'],
    ask: ['Unsubscribe', 'Stop the notifications from this page?', 'Unsubscribe'],
    done: ['Unsubscribed', 'You will get no more notifications from this page.'],
  });

  return router;
}
