import { Type, type Static } from '@sinclair/typebox';
import { ObjectIdString, Nullable, Timestamp } from '../common';
import { SavedBy, TEMPLATE_LIMITS } from './templates';

/** Where a layout puts the template's rendered body: exactly once in its html (and in its text, when it has one). */
export const LAYOUT_CONTENT_SLOT = '{{{content}}}';

const LayoutBody = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  html: Type.String({
    minLength: 1,
    maxLength: 512_000,
    description: `Handlebars HTML around the body: ${LAYOUT_CONTENT_SLOT} exactly once; reads the same user and data as the template; values are HTML-escaped`,
  }),
  text: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 512_000,
        description: `Handlebars text around the text body: ${LAYOUT_CONTENT_SLOT} exactly once; absent: the text body is sent unwrapped (or derived from the wrapped HTML)`,
      }),
    ),
  ),
};

const layoutBodyOptions = {
  additionalProperties: false,
  'x-document': { maxDepth: 1, maxBytes: TEMPLATE_LIMITS.maxBytes },
  description: `html and text together at most ${TEMPLATE_LIMITS.maxBytes / 1024} KB as JSON`,
} as const;

export const CreateLayoutRequest = Type.Object(LayoutBody, layoutBodyOptions);
export type CreateLayoutRequest = Static<typeof CreateLayoutRequest>;

export const SaveLayoutRequest = Type.Object(
  {
    ...LayoutBody,
    draft: Type.Optional(
      Type.Boolean({
        description:
          'true: saved as the newest version, not published (templates keep the published one); absent or false: published at once',
      }),
    ),
  },
  layoutBodyOptions,
);
export type SaveLayoutRequest = Static<typeof SaveLayoutRequest>;

export const Layout = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  version: Type.Integer({ description: 'the version shown' }),
  latest_version: Type.Integer({ description: 'the newest version: a draft when it is ahead of published_version' }),
  published_version: Type.Integer({ description: 'the version sends use' }),
  html: Type.String(),
  text: Nullable(Type.String()),
  saved_by: SavedBy,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Layout = Static<typeof Layout>;

export const LayoutList = Type.Object({ data: Type.Array(Layout, { description: 'newest versions, oldest layout first' }) });

export const LayoutParams = Type.Object({ projectId: ObjectIdString, layoutId: ObjectIdString });

export const LayoutVersionParams = Type.Object({
  projectId: ObjectIdString,
  layoutId: ObjectIdString,
  version: Type.Integer({ minimum: 1 }),
});
