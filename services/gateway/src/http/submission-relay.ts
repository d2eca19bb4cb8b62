import { isIP } from 'node:net';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from '@postbus/errors';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set when the SMTP submission service makes the request for a client it authenticated. */
    submission?: { clientAddress: string };
  }
}

/** The submission service's proof that it makes the request: a bearer token it signed with INTERNAL_API_SECRET, for the gateway. */
export const SUBMISSION_HEADER = 'X-Postbus-Submission';
/** The address of the SMTP client the submission service serves: failed authentications are counted against it. */
export const CLIENT_ADDRESS_HEADER = 'X-Postbus-Client-Address';

/**
 * Requests the SMTP submission service makes on behalf of its clients, who authenticate to it with
 * their project id and API key (which go on as the request's Basic credentials). A valid token
 * marks the request's messages as sent over SMTP, and makes the SMTP client's address the one the
 * failure lockout counts; a bad or expired token is a 401, never a request taken as the client's
 * own. Without the header the request is an ordinary one, its own address counted.
 */
export function submissionRelay(verify: (token: string) => Promise<string | undefined>): RequestHandler {
  return async (req, _res, next) => {
    const header = req.get(SUBMISSION_HEADER);
    if (header === undefined) return next();
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    const why = token ? await verify(token) : 'is missing';
    if (why !== undefined) throw new UnauthorizedError(`The ${SUBMISSION_HEADER} token ${why}.`);
    const address = req.get(CLIENT_ADDRESS_HEADER)?.trim() ?? '';
    req.submission = { clientAddress: isIP(address) ? address : (req.ip ?? req.socket.remoteAddress ?? '') };
    next();
  };
}
