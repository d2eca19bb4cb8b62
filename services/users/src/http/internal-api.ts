import express, { type Router } from 'express';
import { normaliseEmail } from '@postbus/contracts';
import { NotFoundError, ValidationError } from '@postbus/errors';
import type { UserRepository } from '../model/user.repository';
import { toProfile } from './profile';

/**
 * The read API the gateway proxies to. It is internal: the gateway has already authenticated the
 * client and checked that the project is theirs.
 */
export function internalApi(users: UserRepository): Router {
  const router = express.Router();
  router.get('/internal/projects/:projectId/users', async (req, res) => {
    const email = typeof req.query['email'] === 'string' ? req.query['email'] : undefined;
    if (!email) throw new ValidationError('Pass the email to look up.', [{ pointer: '/email', message: 'is required' }]);
    const user = await users.findByRef(req.params.projectId, { email: normaliseEmail(email) });
    if (!user) throw new NotFoundError('No user with that email in this project.');
    res.json(toProfile(user));
  });
  router.get('/internal/projects/:projectId/users/:userId', async (req, res) => {
    const user = await users.findByRef(req.params.projectId, { userId: req.params.userId });
    if (!user) throw new NotFoundError('No user with that user_id in this project.');
    res.json(toProfile(user));
  });
  return router;
}
