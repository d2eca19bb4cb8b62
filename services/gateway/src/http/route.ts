import { createHash } from 'node:crypto';
import type { TSchema } from '@sinclair/typebox';
import type { Request, RequestHandler, Response } from 'express';
import {
  routeDefiner,
  routeTree,
  sendReply,
  validatedInput,
  type CompiledRoute,
  type Reply,
  type RouteSpec as HttpRouteSpec,
} from '@postbus/http';
import { ConflictError, ForbiddenError, UnauthorizedError, UnprocessableError, ValidationError } from '@postbus/errors';
import type { SendSource } from '@postbus/contracts';
import type { KeyScope } from '../domain/credentials';
import type { SendCaller } from '../domain/sends';
import { newIdempotencyNonce } from '../domain/batch-send';
import type { IdempotencyOwner, IdempotencyRepository } from '../model/idempotency.repository';
import type { AuthenticatedClient } from './auth';

export type { Reply };

/** What a public route's handler gets besides the validated request. */
export interface PublicContext {
  client: AuthenticatedClient;
  /** How the request came: from the client over HTTP, or from the SMTP submission service on its behalf. */
  source: SendSource;
  /**
   * With an Idempotency-Key: drawn when the key was first claimed, and the same for every retry of
   * the request while its claim lives. What the request creates is named from it, so that a retry
   * names the same message as an attempt whose write landed after it was answered 503.
   */
  idempotencyNonce?: string;
  /** A request header (a compatible API's options that travel as headers, such as Resend's x-batch-validation). */
  header: (name: string) => string | undefined;
}

/** What a public route carries besides its HTTP operation: its OpenAPI entry and who may call it. */
export interface PublicRouteFields {
  operationId: string;
  summary: string;
  tag: string;
  /**
   * `sdk`: a data-plane operation full and sdk keys may call (send, create/update a user, payments,
   * unsubscribe, erase); `full`: everything else (management, reads, sessions), refused to sdk
   * keys with 403. Test keys are refused both unless `testKeysMayCall`.
   */
  scope: Exclude<KeyScope, 'test'>;
  /** A test key (scope `test`) may call it: the sends, and the reads of the message log, which then see test messages only. */
  testKeysMayCall?: true;
  /** Only the API key itself may call it, never an admin session (opening sessions, creating keys). */
  keyOnly?: true;
  /**
   * A data-plane write that admin sessions of scope full may call as well: the panel's actions a
   * support team takes for one person (unsubscribe, erase). Other data-plane writes need the key.
   */
  sessionsMayCall?: true;
  /**
   * The answer carries a secret shown only once (an API key, a webhook secret, a session token):
   * an Idempotency-Key replay never gets it, since it is never stored.
   */
  answerHoldsSecret?: true;
  /**
   * Whose resource the path names, by the name of its first path parameter; a route whose path
   * has a parameter must say (a test walks the table). Everything under it is read by it.
   */
  tenant?: Tenant;
  /** Credentials that name a project (see AuthenticatedClient's project) may call it though it names none: who-am-I. */
  projectCredentialsMayCall?: true;
}

/**
 * `project`: the project the parameter names must be the caller's; checked here before the handler
 * runs, and another client's project answers 404 as one that does not exist. `keptBy`: the
 * resource (an API key, a webhook, an erasure, a domain) is looked up only among the caller's own
 * by the store or service that keeps it (the client's id goes with every call), so another
 * client's answers 404 there.
 */
export type Tenant =
  | { project: string }
  | { keptBy: 'gateway' | 'webhook-dispatcher' | 'erasure'; param: string }
  | {
      /**
       * The project the credentials are bound to (a project-bound key, or Basic `<project id>:<key>`):
       * the compatible APIs' routes, whose paths name no project. Credentials bound to none are a 403.
       * `param`: the resource the path names is looked up in that project only.
       */
      credentials: true;
      param?: string;
    };

/** The project a `tenant: { credentials: true }` route acts on (answer() refused the request before the handler if there is none). */
export const credentialsProject = (client: AuthenticatedClient): string => {
  if (client.project === undefined) throw new ForbiddenError(UNBOUND_CREDENTIALS);
  return client.project;
};

const UNBOUND_CREDENTIALS =
  'This API acts on one project: send a key bound to a project (POST /v1/keys with project_id), or Basic credentials <project id>:<key>.';

/** The caller of a send, from a route handler's context. */
export const sendCallerOf = (context: {
  client: AuthenticatedClient;
  source: SendSource;
  requestId: string;
  idempotencyNonce?: string;
}): SendCaller => ({
  clientId: context.client.clientId,
  test: context.client.scope === 'test',
  source: context.source,
  requestId: context.requestId,
  ...(context.idempotencyNonce !== undefined ? { idempotencyNonce: context.idempotencyNonce } : {}),
});

/**
 * One public operation: the single source of its validation, its handler and its OpenAPI entry.
 * Its handler gets the authenticated client besides the validated request.
 */
export interface RouteSpec<
  B extends TSchema | undefined = TSchema | undefined,
  P extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
>
  extends HttpRouteSpec<B, P, Q, PublicContext>, PublicRouteFields {}

/**
 * Admin sessions (Bearer or the panel's cookie) may manage and read, and, with scope full, make the
 * writes marked `sessionsMayCall`; other data-plane writes and opening a session need the API key.
 */
export const acceptsSession = (
  route: Pick<RouteSpec, 'scope' | 'method' | 'keyOnly' | 'sessionsMayCall'>,
  sessionScope: KeyScope = 'full',
): boolean =>
  !route.keyOnly && (route.scope === 'full' || route.method === 'get' || (route.sessionsMayCall === true && sessionScope === 'full'));

/**
 * Whether a key (or session) of `scope` may call the route: a full key everything, an sdk key the
 * data-plane operations, a test key only the routes open to it (sending and reading test messages).
 */
export const scopeAllows = (route: Pick<RouteSpec, 'scope' | 'testKeysMayCall'>, scope: KeyScope): boolean =>
  scope === 'full' || (scope === 'sdk' ? route.scope === 'sdk' : route.testKeysMayCall === true);

/** Declares a public route with its handler typed by its schemas. */
export const defineRoute = routeDefiner<PublicContext, PublicRouteFields>();

export interface RouteDeps {
  /** Resolves when the project exists and belongs to the client; throws NotFoundError otherwise. */
  assertProject: (clientId: string, projectId: string) => Promise<void>;
  idempotency: IdempotencyRepository;
  /** Answers to a key are replayed for this long. */
  idempotencyRetentionMs: number;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
// A claim with no answer after this long belongs to a request that died: the key can be reused.
const ABANDONED_CLAIM_MS = 60_000;

/**
 * The public routes of a router mounted at `mountPath` (their paths are full, as in the OpenAPI
 * document), found by libs/http's route tree. Then per route: scope check, validation,
 * idempotency, the handler. A request no route answers is passed on (405 for a known path, else 404).
 */
export const apiRouter = (routes: RouteSpec[], deps: RouteDeps, mountPath = ''): RequestHandler =>
  routeTree(routes, (compiled, req, res) => answer(compiled, deps, req, res), mountPath);

async function answer(compiled: CompiledRoute<RouteSpec>, deps: RouteDeps, req: Request, res: Response): Promise<void> {
  const { route } = compiled;
  const client = req.client;
  if (!client) throw new UnauthorizedError();
  if (client.via === 'session' && !acceptsSession(route, client.scope)) {
    throw new UnauthorizedError('Admin sessions may manage and read; send this operation with the API key (HTTP Basic).');
  }
  if (!scopeAllows(route, client.scope)) {
    throw new ForbiddenError(
      client.scope === 'test'
        ? 'This operation is not open to a test key (scope "test"), which may only send test messages and read them.'
        : `This operation needs a key with scope "full"; this key has scope "${client.scope}", which may only send, create and update users, record payments, unsubscribe and erase.`,
    );
  }
  // Before the body is read: a key that may not call the route at all learns nothing of its body.
  if (route.tenant && 'credentials' in route.tenant && client.project === undefined) throw new ForbiddenError(UNBOUND_CREDENTIALS);
  const source: SendSource = req.submission ? 'smtp' : 'api';
  const header = (name: string): string | undefined => req.get(name);
  const input = { ...validatedInput(compiled, req), client, source, header } as Parameters<RouteSpec['handle']>[0];
  const projectId =
    route.tenant && 'project' in route.tenant
      ? (input.params as Record<string, string>)[route.tenant.project]!
      : route.tenant && 'credentials' in route.tenant
        ? client.project
        : undefined;
  if (client.project !== undefined && client.project !== projectId && !route.projectCredentialsMayCall) {
    throw new ForbiddenError(
      projectId === undefined
        ? `These credentials name the project ${client.project}: they act on that project only, and this operation is not one of a project's.`
        : `These credentials name the project ${client.project}: they act on that project only.`,
    );
  }
  // Before the Idempotency-Key is claimed: another client's project is one that does not exist.
  if (projectId !== undefined) await deps.assertProject(client.clientId, projectId);
  const key = route.method === 'post' ? req.get('idempotency-key') : undefined;
  const reply =
    key === undefined
      ? await route.handle(input)
      : await idempotent(
          deps,
          { clientId: client.clientId, test: client.scope === 'test' },
          key,
          `${req.method} ${req.path} ${JSON.stringify(input.body ?? null)}`,
          (idempotencyNonce) => route.handle({ ...input, idempotencyNonce }),
          res,
          route.answerHoldsSecret === true,
        );
  sendReply(res, reply);
}

/**
 * IETF Idempotency-Key: the first answer is stored and replayed; another body with the key is a
 * 422; a repeat in flight a 409. An answer holding a secret is not stored: its repeat is a 409
 * saying so (the operation is not run twice, and no secret sits in the idempotency store). A
 * client's test keys and its live keys each have their own Idempotency-Keys (see IdempotencyOwner).
 *
 * An attempt that fails on our side (a 503 when the broker did not answer in time) may still have
 * written: its claim stays, marked failed, and the retry runs with the claim's nonce, so it names
 * what it creates as the failed attempt did, and the services that take the write drop the second
 * (the mailer stores one message per id). A retry with another body starts anew.
 */
async function idempotent(
  deps: RouteDeps,
  owner: IdempotencyOwner,
  key: string,
  request: string,
  run: (nonce: string) => Promise<Reply>,
  res: Response,
  answerHoldsSecret: boolean,
): Promise<Reply> {
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new ValidationError('The Idempotency-Key header must be 1 to 255 printable ASCII characters.', [
      { pointer: '', message: 'Idempotency-Key header is invalid' },
    ]);
  }
  const fingerprint = createHash('sha256').update(request).digest('hex');
  const notBefore = new Date(Date.now() - deps.idempotencyRetentionMs);
  const replay = (stored: { fingerprint: string; status: number; body: unknown; withheld?: boolean }): Reply => {
    if (stored.fingerprint !== fingerprint) throw mismatch();
    if (stored.withheld) {
      throw new ConflictError(
        'idempotency-secret-not-replayed',
        `The first request with this Idempotency-Key succeeded (status ${stored.status}). Its answer held a secret, which is shown only once and never stored, so it cannot be replayed.`,
      );
    }
    res.set('Idempotent-Replayed', 'true');
    return { status: stored.status, body: stored.body };
  };
  const inFlight = () =>
    new ConflictError('idempotency-in-flight', 'A request with this Idempotency-Key is still being processed; retry after it finished.');
  const earlier = await deps.idempotency.findResponse(owner, key, notBefore);
  if (earlier) return replay(earlier);

  let claim = await deps.idempotency.claim(owner, key, fingerprint, notBefore, newIdempotencyNonce);
  if (!claim.claimed) {
    const answered = await deps.idempotency.findResponse(owner, key, notBefore);
    if (answered) return replay(answered);
    const free = claim.failedAt !== undefined || Date.now() - (claim.attemptAt ?? claim.createdAt).getTime() >= ABANDONED_CLAIM_MS;
    if (!free) throw claim.fingerprint === fingerprint ? inFlight() : mismatch();
    if (claim.fingerprint === fingerprint) {
      // The same request again, after an attempt that failed or died: it may have written, so the retry names what it creates alike.
      await deps.idempotency.retake(owner, key);
    } else {
      await deps.idempotency.release(owner, key);
      claim = await deps.idempotency.claim(owner, key, fingerprint, notBefore, newIdempotencyNonce);
      if (!claim.claimed) throw inFlight();
    }
  }
  let reply: Reply;
  try {
    reply = await run(claim.nonce);
  } catch (error) {
    // Nothing was answered, but a write may land yet: a retry takes the claim over, with its nonce.
    await deps.idempotency.failed(owner, key);
    throw error;
  }
  const withheld = answerHoldsSecret && reply.status < 300;
  await deps.idempotency.storeResponse(owner, {
    key,
    fingerprint,
    status: reply.status,
    body: withheld ? null : (reply.body ?? null),
    ...(withheld ? { withheld: true } : {}),
  });
  return reply;
}

const mismatch = () => new UnprocessableError('idempotency-key-reused', 'This Idempotency-Key was used with a different request body.');
