import type { RequestHandler } from 'express';
import {
  Erasure,
  ErasureList,
  InternalErasureListQuery,
  InternalErasureParams,
  InternalErasureQuery,
  InternalOpenErasureQuery,
  InternalProjectParams,
  normaliseEmail,
  OpenErasure,
  PAGE_LIMIT,
} from '@postbus/contracts';
import { NotFoundError, ValidationError } from '@postbus/errors';
import { defineRoute, filteredPage, serveRoutes } from '@postbus/http';
import { isListBoundary } from '../domain/erasure-list';
import type { ConfirmationDoc, ErasureDoc } from '../domain/records';
import { keysOf, type ErasureRepository } from '../model/erasure.repository';

export interface InternalApiDeps {
  repository: ErasureRepository;
  participants: string[];
  /** When an erase accepted now would run. */
  eraseAtFrom: (acceptedAt: Date) => Date;
}

const projectIdsOf = (value: string | undefined): string[] => (value ?? '').split(',').filter(Boolean);

/**
 * The read API the gateway calls. It is internal: the gateway has already authenticated the
 * client and names the projects the client may see.
 */
export function internalApi({ repository, participants, eraseAtFrom }: InternalApiDeps): RequestHandler {
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

  return serveRoutes([
    defineRoute({
      method: 'get',
      path: '/internal/projects/:projectId/erasures/open',
      params: InternalProjectParams,
      query: InternalOpenErasureQuery,
      responses: {
        200: { description: "The person's open request, if any, and when a new one accepted now would run", schema: OpenErasure },
      },
      handle: async ({ params, query: { email, user_id: userId } }) => {
        if (!email && !userId) throw new ValidationError('Pass the email or the user_id.', [{ pointer: '/email', message: 'is required' }]);
        const open = await repository.openRequest(
          keysOf(params.projectId, email ? { email: normaliseEmail(email) } : { userId: userId ?? null }),
        );
        const body: OpenErasure = {
          erasure: open ? { id: open.erasureId, erase_at: open.eraseAt.toISOString() } : null,
          erase_at_if_new: eraseAtFrom(new Date()).toISOString(),
        };
        return { status: 200, body };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/internal/erasures',
      query: InternalErasureListQuery,
      responses: { 200: { description: 'One page of erasures of the projects named, newest first', schema: ErasureList } },
      handle: async ({ query: { status, project_ids, limit, cursor } }) => {
        const projectIds = projectIdsOf(project_ids);
        const page = await filteredPage({
          limit: limit ?? PAGE_LIMIT.default,
          cursor,
          filters: { status },
          // The last erasure listed, whatever the number of projects: the cursor stays short (domain/erasure-list.ts).
          isPosition: isListBoundary,
          fetch: (pageLimit, after) => repository.page(projectIds, pageLimit, after),
          positionAfter: (listed) => listed.after,
          view: async (listed) => {
            const present = listed.flatMap((l) => (l.erasure ? [l.erasure] : []));
            const viewed = new Map((await views(present)).map((v) => [v.id, v]));
            return listed.map((l) => (l.erasure ? viewed.get(l.erasure._id)! : null));
          },
          // The status moves on after the erasure is listed: a filter on what is read.
          keep: (view) => view !== null && (status === undefined || view.status === status),
        });
        return { status: 200, body: page };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/internal/erasures/:erasureId',
      params: InternalErasureParams,
      query: InternalErasureQuery,
      responses: { 200: { description: 'The erasure', schema: Erasure }, 404: { description: 'No such erasure in the projects named' } },
      handle: async ({ params, query }) => {
        const erasure = await repository.byIdOrAlias(params.erasureId);
        if (!erasure || !projectIdsOf(query.project_ids).includes(erasure.projectId)) throw new NotFoundError('No such erasure.');
        const [one] = await views([erasure]);
        return { status: 200, body: one };
      },
    }),
  ]);
}
