import express, { type Request, type Response, type Router } from 'express';
import { ValidationError } from '@postbus/errors';
import type { Logger } from '@postbus/logger';
import { validateFaultSpec, type ActiveFault, type FaultInjector } from '../domain/fault';
import { headerMap } from '../domain/headers';
import type { MailpitViews } from '../domain/mailpit-views';
import { compileSearch } from '../domain/search';
import type { StoredMessage } from '../domain/ports';
import type { MessageStore } from '../model/message.repository';

export interface SinkApiOptions {
  store: MessageStore;
  views: MailpitViews;
  faults: FaultInjector;
  logger: Logger;
}

const DEFAULT_LIMIT = 50;

/** Mailpit's paging: a missing or bad number falls back to the default. */
function pageOf(req: Request): { start: number; limit: number } {
  const number = (name: string, fallback: number, minimum: number) => {
    const value = Number(req.query[name]);
    return Number.isInteger(value) && value >= minimum ? value : fallback;
  };
  return { start: number('start', 0, 0), limit: number('limit', DEFAULT_LIMIT, 1) };
}

const notFound = (res: Response) => res.status(404).type('text/plain').send('Not found');

const faultJson = (fault: ActiveFault | undefined) => ({
  fault: fault
    ? {
        code: fault.code,
        message: fault.message,
        stage: fault.stage,
        remaining: fault.remaining,
        expires_at: fault.expiresAt === null ? null : new Date(fault.expiresAt).toISOString(),
      }
    : null,
});

/** The subset of Mailpit's API v1 the project's tests use, plus the fault injection extension. */
export function sinkApi({ store, views, faults, logger }: SinkApiOptions): Router {
  const router = express.Router();
  router.use(express.json({ limit: '1mb' }));

  /** The message an `:id` names, `latest` being the newest one. */
  const messageOf = (req: Request): StoredMessage | undefined => {
    const id = String(req.params['id']);
    return id === 'latest' ? store.latest() : store.get(id);
  };

  router.get('/api/v1/messages', async (req, res) => {
    const { start, limit } = pageOf(req);
    res.json(await views.list(start, limit));
  });

  router.delete('/api/v1/messages', (req, res) => {
    const ids: unknown = (req.body as { IDs?: unknown } | undefined)?.IDs;
    if (Array.isArray(ids) && ids.length > 0) store.delete(ids.map(String));
    else store.clear();
    res.type('text/plain').send('ok');
  });

  router.get('/api/v1/search', async (req, res) => {
    const query = typeof req.query['query'] === 'string' ? req.query['query'].trim() : '';
    if (!query) {
      res.status(400).type('text/plain').send('Error: no search query');
      return;
    }
    const { start, limit } = pageOf(req);
    res.json(
      await views.list(
        start,
        limit,
        compileSearch(query, (message) => views.headersOf(message)),
      ),
    );
  });

  router.get('/api/v1/message/:id', async (req, res) => {
    const message = messageOf(req);
    if (!message) return notFound(res);
    const body = await views.message(message);
    store.markRead(message);
    res.json(body);
  });

  router.get('/api/v1/message/:id/headers', (req, res) => {
    const message = messageOf(req);
    if (!message) return notFound(res);
    res.json(headerMap(message.raw));
  });

  router.get('/api/v1/message/:id/raw', (req, res) => {
    const message = messageOf(req);
    if (!message) return notFound(res);
    res.type('text/plain; charset=utf-8').send(message.raw);
  });

  router.get('/api/sink/fault', (_req, res) => {
    res.json(faultJson(faults.current()));
  });

  router.put('/api/sink/fault', (req, res) => {
    const { spec, problems } = validateFaultSpec(req.body);
    if (!spec) throw new ValidationError(problems.join('; '));
    const fault = faults.set(spec);
    logger.info('fault injected', { code: fault.code, stage: fault.stage, count: fault.remaining, forMs: spec.forMs });
    res.json(faultJson(fault));
  });

  router.delete('/api/sink/fault', (_req, res) => {
    faults.clear();
    logger.info('fault cleared');
    res.json(faultJson(undefined));
  });

  return router;
}
