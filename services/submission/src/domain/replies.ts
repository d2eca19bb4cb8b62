import type { Credentials, GatewayAnswer, SmtpAnswer } from './ports';

/** The key scopes that may send, and so log in (a `test` key's mail is simulated, never delivered). */
const SENDING_SCOPES = new Set(['full', 'sdk', 'test']);

/** The most of a problem's words a reply carries: a reply line is at most 512 characters with its code. */
const MAX_REPLY_TEXT = 400;

/** Control characters (C0, DEL, C1): none goes on a reply line. */
// eslint-disable-next-line no-control-regex -- the control characters are what is removed
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

/** Text fit for one reply line: no control character, no run of spaces, not too long. */
function oneLine(text: string): string {
  const line = text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  return line.length <= MAX_REPLY_TEXT ? line : `${line.slice(0, MAX_REPLY_TEXT - 1)}…`;
}

interface Problem {
  type: string;
  detail: string;
  /** The first field error: where, and what. */
  firstError?: string;
}

/** What a problem+json answer says (RFC 9457, as libs/errors writes it), tolerant of anything else. */
function problemOf(body: unknown): Problem {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const errors = Array.isArray(record['errors']) ? (record['errors'] as unknown[]) : [];
  const first = (typeof errors[0] === 'object' && errors[0] !== null ? errors[0] : {}) as Record<string, unknown>;
  const what = text(first['message']) || text(first['detail']);
  return {
    type: text(record['type']),
    detail: text(record['detail']) || text(record['title']),
    ...(what ? { firstError: `${text(first['pointer']) || '/'}: ${what}` } : {}),
  };
}

/** A problem's words for a reply: its detail, and its first field error when it has one that the detail does not already say. */
function problemText(problem: Problem, fallback: string): string {
  const detail = problem.detail || fallback;
  return oneLine(problem.firstError && !detail.includes(problem.firstError) ? `${detail} (${problem.firstError})` : detail);
}

const problemSlug = (type: string) => type.slice(type.lastIndexOf('/') + 1);

/** The gateway's refusals that are about the sender: the From is not the project's to use. */
const SENDER_PROBLEMS = new Set(['from-email-not-on-sender-domain', 'sender-domain-unverified', 'sender-domain-missing']);

/**
 * Whether the gateway refused this service's own token (X-Postbus-Submission), not the client's
 * credentials: INTERNAL_API_SECRET differs between the two. The client is not at fault, and is
 * told to try again; the service logs it as an error.
 */
export const serviceTokenRefused = (answer: GatewayAnswer): boolean =>
  answer.status === 401 && problemOf(answer.body).detail.includes('X-Postbus-Submission');

const retryIn = (answer: GatewayAnswer) => (answer.retryAfter !== undefined ? `; retry after ${answer.retryAfter} s` : '');

/** A gateway that did not answer, or answered that it cannot take the send now: nothing was accepted, and the client tries again. */
const unavailable = (answer: GatewayAnswer): SmtpAnswer => ({
  code: 451,
  message: oneLine(
    `4.3.0 Postbus could not queue the message now (${answer.status === 0 ? 'the gateway did not answer' : `the gateway answered ${answer.status}`}); nothing was accepted, try again later`,
  ),
});

/**
 * The SMTP reply to a content send's answer other than 200 (only that, durably queued as an HTTP
 * send's 200, makes a 250: acceptedReply). A sender the project may not use is 550 5.7.1 naming its domain; content the gateway
 * refuses is 554 5.6.0 naming the problem and its first field; a rate limit is 451 4.7.1 with
 * its wait; an unreachable gateway, a timeout or a 5xx (the bus down) is 451 4.3.0.
 */
export function refusalOf(answer: GatewayAnswer): SmtpAnswer {
  const { status } = answer;
  const problem = problemOf(answer.body);
  const slug = problemSlug(problem.type);
  if (status === 0 || status >= 500 || serviceTokenRefused(answer)) return unavailable(answer);
  if (status === 429) {
    const detail = problem.detail || 'Rate limit reached';
    return { code: 451, message: oneLine(`4.7.1 ${detail}${detail.includes('retry after') ? '' : retryIn(answer)}`) };
  }
  if (status === 401)
    return { code: 554, message: '5.7.8 Authentication credentials invalid: the API key was refused (revoked?); log in again' };
  if (status === 403 || status === 404)
    return { code: 550, message: oneLine(`5.7.1 ${problemText(problem, 'This key may not send in this project')}`) };
  if (status === 409 && slug === 'idempotency-in-flight')
    return { code: 451, message: oneLine(`4.3.0 ${problemText(problem, 'The same message is still being queued')}`) };
  if (status === 413) return { code: 552, message: oneLine(`5.3.4 ${problemText(problem, 'The message is too large for Postbus')}`) };
  if (status === 422 && SENDER_PROBLEMS.has(slug))
    return { code: 550, message: oneLine(`5.7.1 ${problemText(problem, 'The sender is not on the project’s verified domain')}`) };
  return { code: 554, message: oneLine(`5.6.0 ${problemText(problem, `Postbus refused the message (${status})`)}`) };
}

/** The 250 of a message queued as the given messages (one, or one per blind recipient). */
export function acceptedReply(messageIds: string[]): SmtpAnswer {
  const all = `2.0.0 ${messageIds.join(' ')} queued`;
  if (all.length <= MAX_REPLY_TEXT || messageIds.length <= 1) return { code: 250, message: all };
  return { code: 250, message: `2.0.0 ${messageIds[0]} queued, and ${messageIds.length - 1} more messages` };
}

/** The message id of a content send's 200. */
export function messageIdOf(answer: GatewayAnswer): string {
  const id = (answer.body as { message_id?: unknown } | null)?.message_id;
  return typeof id === 'string' ? id : '';
}

/** The outcome of a login: the credentials to send with, or the reply that refuses it. */
export type LoginOutcome = { credentials: Credentials } | { refusal: SmtpAnswer };

/** A project id (a MongoDB ObjectId's hex), as a login's user name gives it. */
export const PROJECT_ID = /^[0-9a-f]{24}$/;

export const INVALID_CREDENTIALS: SmtpAnswer = { code: 535, message: '5.7.8 Authentication credentials invalid' };

/**
 * The SMTP reply to a login, from the gateway's whoami: the project id and an API key of its
 * client (scope full, sdk or test) log in, as does a key bound to a project with any user name
 * (the gateway refuses another project's id); the credentials then name the key's project. Any
 * other credentials get 535 5.7.8; the gateway's
 * lockout of an address after too many failures (429) is 454 4.7.0 with its wait, as is a
 * gateway that did not answer (the client may try again).
 */
export function loginOutcome(answer: GatewayAnswer, credentials: Credentials): LoginOutcome {
  const { status } = answer;
  if (status === 200) {
    const who = (answer.body ?? {}) as { project_id?: unknown; scope?: unknown };
    const project = who.project_id;
    const namedAnother = PROJECT_ID.test(credentials.projectId) && project !== credentials.projectId;
    if (typeof project !== 'string' || namedAnother || typeof who.scope !== 'string' || !SENDING_SCOPES.has(who.scope))
      return { refusal: INVALID_CREDENTIALS };
    return { credentials: { ...credentials, projectId: project } };
  }
  if (status === 429)
    return {
      refusal: {
        code: 454,
        message: oneLine(`4.7.0 Too many failed logins from this address${retryIn(answer) || '; try again later'}`),
      },
    };
  if (status === 0 || status >= 500 || serviceTokenRefused(answer))
    return {
      refusal: { code: 454, message: '4.7.0 Temporary authentication failure: Postbus could not check the key now; try again later' },
    };
  return { refusal: INVALID_CREDENTIALS };
}
