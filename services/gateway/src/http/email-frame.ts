import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import { ForbiddenError, NotFoundError, problemFor } from '@postbus/errors';
import { MessageParams } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import type { MailerClient } from '../clients/mailer-client';
import { compileText, requestError } from '@postbus/http';
import { embedInlineParts, isFrameableInline, referencedContentIds } from '../domain/inline-parts';

/**
 * The policy of an email shown in the panel: its inline styles and embedded (data:) images and
 * fonts apply, nothing else loads (a remote image stays blank, so viewing tells no tracker), no
 * script runs (`sandbox`: an opaque origin without scripts, forms or navigation), and only the
 * panel's own pages may frame it.
 */
export const EMAIL_FRAME_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  'img-src data:',
  'font-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
  'sandbox',
].join('; ');

/** The headers of a document framed in the panel (an email, a template's preview): its own policy, its type as given, no referrer. */
export const FRAME_HEADERS = {
  'Content-Security-Policy': EMAIL_FRAME_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
} as const;

// The content route's own path schema: an id that cannot exist names no message (404).
const validIds = compileText(MessageParams);

export interface EmailFrameDeps {
  /**
   * What /v1 checks first: authentication (the panel's session cookie from its own origin, a Bearer
   * session or a key) and the client's rate limit.
   */
  guards: RequestHandler[];
  assertProject: (clientId: string, projectId: string) => Promise<void>;
  mailerApi: MailerClient;
  logger: Logger;
}

/**
 * A message's HTML part as a document of its own, for the panel's iframe. Inside the panel's page
 * (a srcdoc frame) the email took the panel's policy, which refuses inline styles: an email showed
 * unstyled. Served here, it has a policy of its own (EMAIL_FRAME_CSP). Who may read it is what may
 * read GET /v1/projects/{projectId}/messages/{messageId}/content: a scope-full client, in a
 * project of its own. Mounted before the panel's router, which answers every other /admin path.
 * The inline images the HTML refers to (cid:) are embedded as data: URLs, so the policy stays as
 * strict (img-src data:) and the frame loads nothing, not even from this origin.
 */
export function emailFrameRouter({ guards, assertProject, mailerApi, logger }: EmailFrameDeps): Router {
  const router = express.Router();
  router.get('/admin/frames/email/:projectId/:messageId', ...guards, async (req, res) => {
    const { projectId, messageId } = req.params as { projectId: string; messageId: string };
    const client = req.client!;
    if (client.scope !== 'full') throw new ForbiddenError('Reading a message needs a key or session with scope "full".');
    if (!validIds({ projectId, messageId })) throw new NotFoundError('No such message in this project.');
    await assertProject(client.clientId, projectId);
    const found = await mailerApi.messageContent(projectId, messageId);
    if (!found) throw new NotFoundError('No such message in this project.');
    if (!found.content) throw new NotFoundError('This message has no rendered email (nothing was sent).');
    const html = await withInlineImages(mailerApi, projectId, messageId, found.content.html);
    res
      // Someone's email: kept by no cache.
      .set({ ...FRAME_HEADERS, 'Cache-Control': 'private, no-store' })
      .type('html')
      .send(html);
  });
  router.use('/admin/frames', frameProblems(logger));
  return router;
}

/** The HTML with the inline images it refers to embedded; one that cannot be read stays a cid: reference (a blank image). */
async function withInlineImages(mailerApi: MailerClient, projectId: string, messageId: string, html: string): Promise<string> {
  const referenced = referencedContentIds(html);
  if (referenced.size === 0) return html;
  const attachments = (await mailerApi.message(projectId, messageId))?.attachments ?? [];
  const parts = new Map<string, { contentType: string; bytes: Uint8Array }>();
  await Promise.all(
    attachments.map(async (a, position) => {
      if (!isFrameableInline(a) || !referenced.has(a.content_id!)) return;
      const read = await mailerApi.attachment(projectId, messageId, position);
      if (read) parts.set(a.content_id!, { contentType: a.content_type, bytes: read.bytes });
    }),
  );
  return embedInlineParts(html, parts);
}

/**
 * A refusal inside the frame is a line of text under the frame's policy (then one line per field
 * it names, such as a template's syntax error): never the problem handler's
 * `WWW-Authenticate: Basic`, which would open the browser's login dialog in the panel.
 */
export function frameProblems(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const { problem } = problemFor(requestError(error), req.requestId);
    if (problem.status >= 500) logger.error('panel frame failed', { error, requestId: req.requestId, path: req.path });
    const fields = (problem.errors ?? []).map((e) => `\n${e.pointer || '/'}: ${e.message}`);
    res
      .status(problem.status)
      .set({ 'Content-Security-Policy': EMAIL_FRAME_CSP, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' })
      .type('text')
      .send(`${problem.title}${problem.detail ? `: ${problem.detail}` : ''}${fields.join('')}`);
  };
}
