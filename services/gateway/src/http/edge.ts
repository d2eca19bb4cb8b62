import { randomBytes } from 'node:crypto';
import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import type { Publisher } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { TrackingTokens, type TrackingAction, type TrackingClaim } from '@postbus/crypto';
import type { Logger } from '@postbus/logger';
import { answersOnHost, redirectTarget, trackingEventOf, type TrackingEventType } from '../domain/tracking-links';

export interface EdgeDeps {
  tokens: TrackingTokens;
  publisher: Publisher;
  logger: Logger;
}

/** Longer tokens are refused unread: a real one is a few hundred characters (a click's URL included). */
const MAX_TOKEN_LENGTH = 4096;
/** A 1×1 transparent GIF (43 bytes). */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'";
const RETRY_AFTER_SECONDS = 5;

/** Every edge answer: personal (the token names a message), never cached, indexed or framed, and the token never leaks as a referrer. */
const EDGE_HEADERS = {
  'Cache-Control': 'no-store, private',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'X-Robots-Tag': 'noindex, nofollow',
};

const STYLE =
  'body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#f5f7fa;margin:0}' +
  'main{max-width:28rem;margin:12vh auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12)}' +
  'h1{font-size:1.4rem;margin:0 0 1rem}p{line-height:1.5}' +
  'button{font:inherit;padding:.6rem 1.4rem;border:0;border-radius:6px;background:#c53030;color:#fff;cursor:pointer}';

/** The secret that checks tracking links: TRACKING_SECRET, or (development only) a random one for this process. */
export function trackingTokens(secret: string, logger: Logger): TrackingTokens {
  if (secret) return new TrackingTokens(secret);
  logger.warn('TRACKING_SECRET is not set: tracking and unsubscribe links are checked with a random key that ends with this process');
  return new TrackingTokens(randomBytes(32).toString('hex'));
}

/**
 * The public edge under /t, without credentials: the tokens signed by the mailer are the only
 * authority. Opens and clicks are recorded on the bus in the background (the pixel and the redirect
 * never wait for the broker, nor fail with it); a one-click unsubscribe is answered only once the
 * broker holds it. A GET never unsubscribes: link scanners follow links.
 */
export function edgeRouter({ tokens, publisher, logger }: EdgeDeps): Router {
  const edge = express.Router();
  edge.use((_req, res, next) => {
    res.set(EDGE_HEADERS);
    next();
  });

  // A token answers only on the host its link was sent with (answersOnHost).
  const claimOf = async (req: Request, action: TrackingAction): Promise<TrackingClaim | null> => {
    const token = String(req.params['token'] ?? '');
    if (token.length > MAX_TOKEN_LENGTH) return null;
    const claim = await tokens.verify(token, action);
    return claim && answersOnHost(claim, req.hostname) ? claim : null;
  };

  const record = async (type: TrackingEventType, claim: TrackingClaim): Promise<void> => {
    await publisher.publish(Topics.TrackingEvents, type, claim.messageId, trackingEventOf(type, claim, new Date()));
  };

  const recordInBackground = (type: TrackingEventType, claim: TrackingClaim): void => {
    record(type, claim).catch((error: unknown) => {
      logger.warn('tracking event not recorded', { type, messageId: claim.messageId, error: (error as Error).message });
    });
  };

  edge.get('/o/:token', async (req, res) => {
    const claim = await claimOf(req, 'open');
    if (!claim) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    // A HEAD (a proxy checking the image) is no open.
    if (req.method === 'GET') recordInBackground('tracking.opened', claim);
    res.status(200).type('image/gif').send(PIXEL);
  });

  edge.get('/c/:token', async (req, res) => {
    const claim = await claimOf(req, 'click');
    const target = claim?.url === undefined ? undefined : redirectTarget(claim.url);
    if (!claim || target === undefined) {
      notFound(res);
      return;
    }
    if (req.method === 'GET') recordInBackground('tracking.clicked', claim);
    res.status(302).set('Location', target).end();
  });

  edge.get('/u/:token', async (req, res) => {
    if (!(await claimOf(req, 'unsubscribe'))) {
      notFound(res);
      return;
    }
    // The same form a mail client posts for RFC 8058 one-click; no action: it posts to this very URL.
    page(
      res,
      200,
      'Unsubscribe',
      '<h1>Unsubscribe</h1><p>Do you want to stop receiving these emails?</p>' +
        '<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">' +
        '<button type="submit">Unsubscribe</button></form>',
    );
  });

  // RFC 8058: the body is List-Unsubscribe=One-Click (urlencoded or multipart); it is read, never required.
  edge.post('/u/:token', express.urlencoded({ extended: false, limit: '1kb', parameterLimit: 10 }), async (req, res) => {
    const claim = await claimOf(req, 'unsubscribe');
    if (!claim) {
      notFound(res);
      return;
    }
    try {
      await record('tracking.unsubscribed', claim);
    } catch (error) {
      logger.warn('unsubscribe not recorded: the broker did not take it', { messageId: claim.messageId, error: (error as Error).message });
      res.set('Retry-After', String(RETRY_AFTER_SECONDS));
      page(
        res,
        503,
        'Try again',
        '<h1>Please try again</h1><p>We could not record your request just now. Please try again in a minute.</p>',
      );
      return;
    }
    page(res, 200, 'Unsubscribed', '<h1>You are unsubscribed</h1><p>You will no longer receive these emails.</p>');
  });

  const edgeErrors: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const raw = (error as { status?: unknown; statusCode?: unknown } | null) ?? {};
    const status = typeof raw.status === 'number' ? raw.status : typeof raw.statusCode === 'number' ? raw.statusCode : 500;
    if (status >= 400 && status < 500) {
      page(res, status, 'Bad request', '<h1>This request could not be handled</h1>');
      return;
    }
    logger.error('edge request failed', { error, method: req.method, path: (req.route as { path?: string } | undefined)?.path });
    page(res, 500, 'Error', '<h1>Something went wrong</h1><p>Please try again later.</p>');
  };
  edge.use(edgeErrors);

  // Mounted here, so that the error handler above only ever sees requests under /t.
  const router = express.Router();
  router.use('/t', edge);
  return router;
}

function notFound(res: Response): void {
  page(res, 404, 'Not found', '<h1>Link not found</h1><p>This link is not valid.</p>');
}

function page(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .set('Content-Security-Policy', CSP)
    .type('html')
    .send(
      '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
        '<meta name="viewport" content="width=device-width, initial-scale=1">' +
        `<title>${title}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`,
    );
}
