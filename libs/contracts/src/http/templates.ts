import { Type, type Static } from '@sinclair/typebox';
import { FreeFormObject, LanguageTag, Nullable, ObjectIdString, StringEnum, Timestamp } from '../common';

const TemplateBody = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  subject: Type.String({ minLength: 1, maxLength: 998, description: 'Handlebars; {{user.…}} and {{data.…}}; not HTML-escaped' }),
  html: Type.String({
    minLength: 1,
    maxLength: 512_000,
    description: 'Handlebars; values are HTML-escaped. With format mjml: MJML, compiled to HTML after Handlebars ran on it',
  }),
  text: Type.Optional(Nullable(Type.String({ maxLength: 512_000, description: 'Handlebars; absent: derived from the HTML' }))),
};

export const TEMPLATE_FORMATS = ['handlebars', 'mjml'] as const;
export type TemplateFormat = (typeof TEMPLATE_FORMATS)[number];

const TemplateFormatField = StringEnum(TEMPLATE_FORMATS, {
  description: 'handlebars (the default): the html is HTML; mjml: the html is an MJML document (<mjml>…), compiled to responsive HTML',
});

/** The most language variants a template has: each is a whole subject, html and text. */
export const MAX_TEMPLATE_VARIANTS = 50;

const LayoutIdField = Nullable(
  Type.String({
    pattern: '^[a-f0-9]{24}$',
    description: 'a layout of the project: the mail is its html with this body in its {{{content}}}',
  }),
);

/** One language's subject and bodies: sent to users whose language is this one (or its primary subtag). */
export const TemplateVariant = Type.Object(
  {
    language: LanguageTag,
    subject: TemplateBody.subject,
    html: TemplateBody.html,
    text: TemplateBody.text,
    layout_id: Type.Optional(
      Type.String({ pattern: '^[a-f0-9]{24}$', description: "the layout this language is sent in; absent: the template's layout_id" }),
    ),
  },
  { additionalProperties: false },
);
export type TemplateVariant = Static<typeof TemplateVariant>;

const TemplateContent = {
  format: Type.Optional(TemplateFormatField),
  layout_id: Type.Optional(LayoutIdField),
  variants: Type.Optional(
    Type.Array(TemplateVariant, {
      maxItems: MAX_TEMPLATE_VARIANTS,
      description: `up to ${MAX_TEMPLATE_VARIANTS} languages (tags unique, case-insensitively); the template's own subject, html and text are the default, sent when no variant matches`,
    }),
  ),
};

/**
 * A saved template travels whole on the catalog topic: its parts together stay well under the
 * broker's 1 MB per record, counted as serialised (UTF-8, escapes included).
 */
export const TEMPLATE_LIMITS = { maxDepth: 3, maxBytes: 768 * 1024 } as const;

const templateBodyOptions = {
  additionalProperties: false,
  'x-document': TEMPLATE_LIMITS,
  description: `subject, html and text (the variants' included) together at most ${TEMPLATE_LIMITS.maxBytes / 1024} KB as JSON`,
} as const;

export const CreateTemplateRequest = Type.Object({ ...TemplateBody, ...TemplateContent }, templateBodyOptions);
export type CreateTemplateRequest = Static<typeof CreateTemplateRequest>;

export const SaveTemplateRequest = Type.Object(
  {
    ...TemplateBody,
    ...TemplateContent,
    draft: Type.Optional(
      Type.Boolean({
        description: 'true: saved as the newest version, not published (sends keep the published one); absent or false: published at once',
      }),
    ),
  },
  templateBodyOptions,
);
export type SaveTemplateRequest = Static<typeof SaveTemplateRequest>;

/** Who saved a version: the API key, directly or through an admin session it opened. */
export const SavedBy = Nullable(
  Type.Object(
    { key_id: Type.String(), via: StringEnum(['key', 'session'] as const) },
    { description: 'the API key that saved it (via session: through the admin panel); null for versions saved before this was kept' },
  ),
);

export const Template = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  version: Type.Integer({ description: 'the version shown' }),
  latest_version: Type.Integer({ description: 'the newest version: a draft when it is ahead of published_version' }),
  published_version: Type.Integer({ description: 'the version sends use' }),
  format: TemplateFormatField,
  subject: Type.String(),
  html: Type.String(),
  text: Nullable(Type.String()),
  layout_id: Nullable(Type.String()),
  variants: Type.Array(
    Type.Object({
      language: Type.String(),
      subject: Type.String(),
      html: Type.String(),
      text: Nullable(Type.String()),
      layout_id: Nullable(Type.String()),
    }),
  ),
  saved_by: SavedBy,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Template = Static<typeof Template>;

export const TemplateList = Type.Object({ data: Type.Array(Template) });

/** The most versions GET …/versions answers: newest first, older ones stay readable by number. */
export const MAX_TEMPLATE_VERSIONS_LISTED = 500;

export const TemplateVersionList = Type.Object({
  data: Type.Array(
    Type.Object({
      version: Type.Integer({ minimum: 1 }),
      created_at: Timestamp,
      saved_by: SavedBy,
      published: Type.Boolean({ description: 'the version sends use' }),
    }),
    { description: `newest first, at most ${MAX_TEMPLATE_VERSIONS_LISTED}` },
  ),
});
export type TemplateVersionList = Static<typeof TemplateVersionList>;

export const TemplateParams = Type.Object({ projectId: ObjectIdString, templateId: ObjectIdString });

export const TemplateVersionParams = Type.Object({
  projectId: ObjectIdString,
  templateId: ObjectIdString,
  version: Type.Integer({ minimum: 1 }),
});

export const TemplateVersionQuery = Type.Object(
  { version: Type.Optional(Type.Integer({ minimum: 1, description: 'an older version; the latest by default' })) },
  { additionalProperties: false },
);

const PreviewLanguage = Type.Optional(
  Type.String({
    ...LanguageTag,
    description: 'the variant for this language (exact tag, then its primary subtag, then the default), as a send picks it',
  }),
);

export const PreviewRequest = Type.Object(
  {
    user: Type.Optional(FreeFormObject()),
    data: Type.Optional(FreeFormObject()),
    version: Type.Optional(Type.Integer({ minimum: 1, description: 'a version (?version= says the same); the newest by default' })),
    language: PreviewLanguage,
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
    ...TemplateContent,
    user: Type.Optional(FreeFormObject()),
    data: Type.Optional(FreeFormObject()),
    language: PreviewLanguage,
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
    ...TemplateContent,
    user: Type.Optional(FreeFormObject()),
    data: Type.Optional(FreeFormObject()),
    language: PreviewLanguage,
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
      field: Type.String({
        description:
          'subject, html or text; variants/N/subject, variants/N/html or variants/N/text; layout_id (or variants/N/layout_id) for the layout named',
      }),
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
