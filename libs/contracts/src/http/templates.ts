import { Type, type Static } from '@sinclair/typebox';
import { FreeFormObject, Nullable, ObjectIdString, StringEnum, Timestamp } from '../common';

const TemplateBody = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  subject: Type.String({ minLength: 1, maxLength: 998, description: 'Handlebars; {{user.…}} and {{data.…}}; not HTML-escaped' }),
  html: Type.String({ minLength: 1, maxLength: 512_000, description: 'Handlebars; values are HTML-escaped' }),
  text: Type.Optional(Nullable(Type.String({ maxLength: 512_000, description: 'Handlebars; absent: derived from the HTML' }))),
};

/**
 * A saved template travels whole on the catalog topic: its parts together stay well under the
 * broker's 1 MB per record, counted as serialised (UTF-8, escapes included).
 */
export const TEMPLATE_LIMITS = { maxDepth: 1, maxBytes: 768 * 1024 } as const;

export const SaveTemplateRequest = Type.Object(TemplateBody, {
  additionalProperties: false,
  'x-document': TEMPLATE_LIMITS,
  description: `subject, html and text together at most ${TEMPLATE_LIMITS.maxBytes / 1024} KB as JSON`,
});
export type SaveTemplateRequest = Static<typeof SaveTemplateRequest>;

export const Template = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  version: Type.Integer({ description: 'the version shown' }),
  latest_version: Type.Integer(),
  subject: Type.String(),
  html: Type.String(),
  text: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Template = Static<typeof Template>;

export const TemplateList = Type.Object({ data: Type.Array(Template) });

/** The most versions GET …/versions answers: newest first, older ones stay readable by number. */
export const MAX_TEMPLATE_VERSIONS_LISTED = 500;

export const TemplateVersionList = Type.Object({
  data: Type.Array(Type.Object({ version: Type.Integer({ minimum: 1 }), created_at: Timestamp }), {
    description: `newest first, at most ${MAX_TEMPLATE_VERSIONS_LISTED}`,
  }),
});
export type TemplateVersionList = Static<typeof TemplateVersionList>;

export const TemplateParams = Type.Object({ projectId: ObjectIdString, templateId: ObjectIdString });

export const TemplateVersionQuery = Type.Object(
  { version: Type.Optional(Type.Integer({ minimum: 1, description: 'an older version; the latest by default' })) },
  { additionalProperties: false },
);

export const PreviewRequest = Type.Object(
  {
    user: Type.Optional(FreeFormObject()),
    data: Type.Optional(FreeFormObject()),
    version: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);
export type PreviewRequest = Static<typeof PreviewRequest>;

/** An unsaved template rendered as it would be sent: the editor's live preview. */
export const DraftPreviewRequest = Type.Object(
  {
    subject: TemplateBody.subject,
    html: TemplateBody.html,
    text: TemplateBody.text,
    user: Type.Optional(FreeFormObject()),
    data: Type.Optional(FreeFormObject()),
  },
  { additionalProperties: false },
);
export type DraftPreviewRequest = Static<typeof DraftPreviewRequest>;

export const RenderedEmail = Type.Object({ subject: Type.String(), html: Type.String(), text: Type.String() });

/**
 * An unsaved template to check (the editor's errors while typing): at least one of subject, html
 * and text (the gateway answers 422 naming /subject when none is given), rendered with user and data.
 */
export const ValidateTemplateRequest = Type.Object(
  {
    subject: Type.Optional(TemplateBody.subject),
    html: Type.Optional(TemplateBody.html),
    text: TemplateBody.text,
    user: Type.Optional(FreeFormObject()),
    data: Type.Optional(FreeFormObject()),
  },
  { additionalProperties: false, description: 'at least one of subject, html and text' },
);
export type ValidateTemplateRequest = Static<typeof ValidateTemplateRequest>;

/** What a check of a template found: its errors (valid when none), its render, and what it reads. */
export const TemplateValidation = Type.Object({
  valid: Type.Boolean({
    description: 'no errors: the template parses, fits the render limits (as saving checks) and renders with this user and data',
  }),
  errors: Type.Array(
    Type.Object({
      field: StringEnum(['subject', 'html', 'text'] as const),
      line: Nullable(Type.Integer({ minimum: 1, description: 'from 1, within the field; null when unknown' })),
      column: Nullable(Type.Integer({ minimum: 1, description: 'from 1; null when unknown' })),
      message: Type.String(),
    }),
  ),
  rendered: Nullable(
    Type.Object(RenderedEmail.properties, {
      description: 'with the user and data given; null when the template does not parse or its render failed',
    }),
  ),
  variables: Type.Array(Type.String(), { description: 'every user.* and data.* path the template reads, sorted' }),
});
export type TemplateValidation = Static<typeof TemplateValidation>;
