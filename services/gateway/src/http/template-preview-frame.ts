import express, { type RequestHandler, type Router } from 'express';
import { DraftPreviewRequest, ProjectIdParam, RenderedEmail } from '@postbus/contracts';
import { ForbiddenError, MalformedRequestError, PayloadTooLargeError } from '@postbus/errors';
import { compileRoute, routeDefiner, validatedInput } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { RenderContext } from '@postbus/templates';
import { previewDraft } from '../domain/template-checks';
import type { LayoutRepository } from '../model/layout.repository';
import type { TemplateRepository } from '../model/template.repository';
import type { AuthenticatedClient } from './auth';
import { FRAME_HEADERS, frameProblems } from './email-frame';
import { layoutLookup, sourceOf } from './routes/templates.routes';

const FRAME_PATH = '/admin/frames/template-preview/:projectId';

const defineFrameRoute = routeDefiner<{ client: AuthenticatedClient }>();

/** The form's one field: the preview request, as the JSON /v1's previewDraftTemplate takes as its body. */
const REQUEST_FIELD = 'request';

const UNITS = { b: 1, kb: 1024, mb: 1024 * 1024 } as const;

/** A size as BODY_LIMIT states it (`512kb`, `1mb`: as express reads it, 1 kb = 1024 bytes), in bytes. */
const bytesOf = (limit: string): number => {
  const [, count, unit] = /^(\d+)(b|kb|mb)$/.exec(limit) ?? [];
  if (count === undefined || unit === undefined) throw new Error(`Not a size: ${limit}`);
  return Number(count) * UNITS[unit as keyof typeof UNITS];
};

export interface TemplatePreviewFrameDeps {
  /** What /v1 checks first: authentication (see EmailFrameDeps), the client's rate limit and its body bytes in flight. */
  guards: RequestHandler[];
  assertProject: (clientId: string, projectId: string) => Promise<void>;
  templates: TemplateRepository;
  layouts: LayoutRepository;
  /** /v1's body limit (BODY_LIMIT), which the preview request's JSON must fit as it does there. */
  bodyLimit: string;
  logger: Logger;
}

/**
 * The form the panel posts: one urlencoded field. Percent-encoding writes a byte as up to three, so
 * the form may be three times /v1's body limit; the JSON it carries is then held to that limit, as
 * /v1 holds the same request sent as a JSON body.
 */
function previewForm(bodyLimit: string, limitBytes: number): RequestHandler {
  const parse = express.urlencoded({ extended: false, limit: 3 * limitBytes, parameterLimit: 10 });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      const type = (error as { type?: unknown } | undefined)?.type;
      if (type === 'entity.too.large') return next(new PayloadTooLargeError(bodyLimit));
      if (type === 'parameters.too.many')
        return next(new MalformedRequestError(`The form has more fields than its one, ${REQUEST_FIELD}.`));
      next(error);
    });
  };
}

/** The preview request the form carries, parsed (validated next, as /v1 validates its body). */
function requestOf(form: unknown, bodyLimit: string, limitBytes: number): unknown {
  const field = (form as Record<string, unknown> | undefined)?.[REQUEST_FIELD];
  if (typeof field !== 'string') {
    throw new MalformedRequestError(
      `Post a form (application/x-www-form-urlencoded) whose one field, ${REQUEST_FIELD}, holds the preview request as JSON.`,
    );
  }
  if (Buffer.byteLength(field) > limitBytes) throw new PayloadTooLargeError(bodyLimit);
  try {
    return JSON.parse(field);
  } catch (error) {
    throw new MalformedRequestError(`The field ${REQUEST_FIELD} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The template editor's live preview as a document of its own, for the panel's iframe: a srcdoc
 * frame took the panel's policy, which refuses inline styles and <style>, and an MJML template
 * (whose HTML is mostly those) or a styled layout showed unstyled. The panel fills the frame by
 * posting a form to it (a frame's GET could not carry a whole template); the HTML is rendered as
 * POST /v1/projects/{projectId}/template-preview renders it, with the same checks: a scope-full
 * client, in a project of its own, the request valid by the same schema. It is framed under the
 * email frame's policy (EMAIL_FRAME_CSP): its styles apply, nothing loads, nothing runs.
 *
 * A form post is what another site's page can make too (a simple request, no preflight). The
 * guards refuse it: the session cookie is SameSite=Strict (the browser does not send it with a
 * request another site starts), and `authenticate` refuses credentials of any kind (the cookie,
 * or Basic credentials a browser stored) on a request whose Sec-Fetch-Site or Origin says another
 * site, and takes the cookie only when they say this origin (see siteOfRequest).
 */
export function templatePreviewFrameRouter({
  guards,
  assertProject,
  templates,
  layouts,
  bodyLimit,
  logger,
}: TemplatePreviewFrameDeps): Router {
  const lookup = layoutLookup(layouts);
  const limitBytes = bytesOf(bodyLimit);
  // The frame's operation, declared as /v1's previewDraftTemplate is: the same schemas validate it.
  const preview = compileRoute(
    defineFrameRoute({
      method: 'post',
      path: FRAME_PATH,
      params: ProjectIdParam,
      body: DraftPreviewRequest,
      responses: { 200: { description: 'The rendered email', schema: RenderedEmail } },
      handle: async ({ params, body, client }) => {
        // Another client's project is one that does not exist (404), as on /v1.
        await assertProject(client.clientId, params.projectId);
        const context: RenderContext = { user: body.user, data: body.data };
        const options = { clientId: client.clientId, projectId: params.projectId, language: body.language, context };
        return { status: 200, body: await previewDraft(templates.engine, lookup, sourceOf(body), options) };
      },
    }),
  );
  // Before the body is read: credentials that may not preview learn nothing of it.
  const mayPreview: RequestHandler = (req, _res, next) => {
    const client = req.client!;
    const { projectId } = req.params as { projectId: string };
    if (client.scope !== 'full') throw new ForbiddenError('Previewing a template needs a key or session with scope "full".');
    if (client.project !== undefined && client.project !== projectId)
      throw new ForbiddenError(`These credentials name the project ${client.project}: they act on that project only.`);
    next();
  };
  const router = express.Router();
  router.post(FRAME_PATH, ...guards, mayPreview, previewForm(bodyLimit, limitBytes), async (req, res) => {
    const client = req.client!;
    req.body = requestOf(req.body, bodyLimit, limitBytes);
    const input = { ...validatedInput(preview, req), client } as Parameters<typeof preview.route.handle>[0];
    const reply = await preview.route.handle(input);
    res
      // A draft being typed: kept by no cache.
      .set({ ...FRAME_HEADERS, 'Cache-Control': 'no-store' })
      .type('html')
      .send((reply.body as { html: string }).html);
  });
  router.use('/admin/frames', frameProblems(logger));
  return router;
}
