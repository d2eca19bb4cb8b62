import { Type } from '@sinclair/typebox';
import { CommonConfig, InternalApiConfig } from '@postbus/config';

export const UsersConfig = Type.Object({
  ...CommonConfig,
  ...InternalApiConfig,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8081, description: 'internal read API port' }),
  USERS_DB_NAME: Type.String({ default: 'postbus_users', pattern: '^[A-Za-z0-9_-]+$', description: "the users service's own database" }),
  USER_UPDATE_RETRY_WINDOW_MS: Type.Integer({
    minimum: 0,
    default: 30_000,
    description: 'how long an update for a user that does not exist yet waits for its create before it is rejected',
  }),
  USERS_BULK_RATE_WHILE_SENDING: Type.Integer({
    minimum: 1,
    default: 20,
    description:
      "batch sends' implicit registrations made a second at most while single sends are flowing, so that one client's batches never slow the database under another client's mail; as fast as the service goes otherwise",
  }),
});

export type UsersConfig = typeof UsersConfig.static;
