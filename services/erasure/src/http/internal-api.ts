import express, { type Router } from 'express';
import { ERASURE_STATUSES, normaliseEmail, type Erasure, type ErasureStatus } from '@postbus/contracts';
import { NotFoundError, UnprocessableError, ValidationError } from '@postbus/errors';
import { filteredPage, queryLimit, queryText } from '@postbus/http';
import { keysOf, type ErasureRepository, type ListPosition } from '../model/erasure.repository';
import type { ConfirmationDoc, ErasureDoc } from '../model/erasure.schema';

export interface InternalApiDeps {
  repository: ErasureRepository;
  participants: string[];
  /** When an erase accepted now would run. */
  eraseAtFrom: (acceptedAt: Date) => Date;
}

const projectIdsOf = (value: unknown): string[] => (queryText(value) ?? '').split(',').filter(Boolean);

/** A list position inside the cursor: `<projectId>:<number>` per project, comma-separated. */
const encodePosition = (position: ListPosition): string => [...position].map(([p, seq]) => `${p}:${seq}`).join(',');

function decodePosition(text: string): ListPosition {
  const position: ListPosition = new Map();
  for (const part of text.split(',')) {
    const at = part.lastIndexOf(':');
    const seq = Number(part.slice(at + 1));
    if (at < 1 || !Number.isSafeInteger(seq) || seq < 1)
      throw new UnprocessableError('invalid-cursor', 'The cursor is not one this API gave out; use next_cursor of a previous page.');
    position.set(part.slice(0, at), seq);
  }
  return position;
}

/**
 * The read API the gateway calls. It is internal: the gateway has already authenticated the
 * client and names the projects the client may see.
 */
export function internalApi({ repository, participants, eraseAtFrom }: InternalApiDeps): Router {
  const view = (erasure: ErasureDoc, confirmations: ConfirmationDoc[]): Erasure => {
    const confirmed = new Set(confirmations.map((c) => c.service));
    return {
      id: erasure._id,
      project_id: erasure.projectId,
      status: erasure.status,
      requested_at: erasure.requestedAt.toISOString(),
      erase_at: erasure.eraseAt.toISOString(),
      executed_at: erasure.executedAt?.toISOString() ?? null,
      completed_at: erasure.completedAt?.toISOString() ?? null,
      email_hmac: erasure.emailHmac,
      confirmed_by: [...confirmed].sort(),
      waiting_for: erasure.status === 'completed' ? [] : participants.filter((p) => !confirmed.has(p)),
    };
  };
  const views = async (docs: ErasureDoc[]): Promise<Erasure[]> => {
    const confirmations = await repository.confirmations(docs.map((d) => d._id));
    return docs.map((d) => view(d, confirmations.get(d._id) ?? []));
  };

  const router = express.Router();
  /** The person's open request, if any, and when a new one accepted now would run. */
  router.get('/internal/projects/:projectId/erasures/open', async (req, res) => {
    const email = queryText(req.query['email']);
    const userId = queryText(req.query['user_id']);
    if (!email && !userId) throw new ValidationError('Pass the email or the user_id.', [{ pointer: '/email', message: 'is required' }]);
    const open = await repository.openRequest(
      keysOf(req.params.projectId, email ? { email: normaliseEmail(email) } : { userId: userId ?? null }),
    );
    res.json({
      erasure: open ? { id: open.erasureId, erase_at: open.eraseAt.toISOString() } : null,
      erase_at_if_new: eraseAtFrom(new Date()).toISOString(),
    });
  });
  router.get('/internal/erasures', async (req, res) => {
    const status = queryText(req.query['status']);
    if (status !== undefined && !(ERASURE_STATUSES as readonly string[]).includes(status))
      throw new ValidationError('Unknown status.', [{ pointer: '/status', message: `must be one of ${ERASURE_STATUSES.join(', ')}` }]);
    const projectIds = projectIdsOf(req.query['project_ids']);
    res.json(
      await filteredPage({
        limit: queryLimit(req.query['limit']),
        cursor: queryText(req.query['cursor']),
        fetch: async (limit, after) =>
          (await repository.page(projectIds, limit, after && decodePosition(after.id))).map((listed) => ({
            _id: encodePosition(listed.after),
            createdAt: listed.at,
            erasure: listed.erasure,
          })),
        view: async (docs) => {
          const present = docs.flatMap((d) => (d.erasure ? [d.erasure] : []));
          const viewed = new Map((await views(present)).map((v) => [v.id, v]));
          return docs.map((d) => (d.erasure ? viewed.get(d.erasure._id)! : null));
        },
        // The status moves on after the erasure is listed: a filter on what is read.
        keep: (view) => view !== null && (status === undefined || view.status === (status as ErasureStatus)),
      }),
    );
  });
  router.get('/internal/erasures/:erasureId', async (req, res) => {
    const erasure = await repository.byIdOrAlias(req.params.erasureId);
    if (!erasure || !projectIdsOf(req.query['project_ids']).includes(erasure.projectId)) throw new NotFoundError('No such erasure.');
    const [one] = await views([erasure]);
    res.json(one);
  });
  return router;
}
