import { Type, type Static } from '@sinclair/typebox';
import { Email, Nullable, ObjectIdString, Timestamp } from '../common';
import { SenderIdentity } from './shared';

const ProjectSettings = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  from_email: Type.Optional(Nullable(Email)),
  from_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  reply_to: Type.Optional(Nullable(Email)),
  sender_domain_id: Type.Optional(Nullable(ObjectIdString)),
  tracking_domain_id: Type.Optional(Nullable(ObjectIdString)),
  // No schema default: request validation fills defaults in, and a PATCH would turn tracking off.
  track_opens: Type.Optional(
    Type.Boolean({ description: "a content send's open tracking when it does not say (a stored email has its own); false until set" }),
  ),
  track_clicks: Type.Optional(
    Type.Boolean({ description: "a content send's click tracking when it does not say (a stored email has its own); false until set" }),
  ),
};

export const CreateProjectRequest = Type.Object(ProjectSettings, { additionalProperties: false });
export type CreateProjectRequest = Static<typeof CreateProjectRequest>;

export const UpdateProjectRequest = Type.Partial(Type.Object(ProjectSettings), { additionalProperties: false, minProperties: 1 });
export type UpdateProjectRequest = Static<typeof UpdateProjectRequest>;

export const ProjectIdParam = Type.Object({ projectId: ObjectIdString });

export const Project = Type.Object({
  id: Type.String(),
  name: Type.String(),
  ...SenderIdentity,
  sender_domain_id: Nullable(Type.String()),
  tracking_domain_id: Nullable(Type.String()),
  track_opens: Type.Boolean(),
  track_clicks: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Project = Static<typeof Project>;

export const ProjectList = Type.Object({ data: Type.Array(Project) });
