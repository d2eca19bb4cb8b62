import type { Connection } from 'mongoose';
import type { TemplateEngine, TemplateParts } from '@postbus/templates';
import { deletion, type CatalogChange, type CatalogListener, type CatalogSource, type TemplateLookup } from '../domain/ports/catalog';
import { VersionedStore, type Versioned } from './versioned.store';

/** One language's parts of a template version. */
export interface TemplateVariantParts {
  language: string;
  subject: string;
  html: string;
  text: string | null;
  layoutId: string | null;
}

/** What a template version holds: its default parts, its format and layout, its language variants. */
export interface TemplateContent extends TemplateParts {
  text: string | null;
  format: 'handlebars' | 'mjml';
  layoutId: string | null;
  variants: TemplateVariantParts[];
  /** Whether every part renders within the inline budget, as measured when it was saved; null when unknown. */
  cheap: boolean | null;
}

export type TemplateVersion = Versioned<TemplateContent>;

const variantSchema = { language: String, subject: String, html: String, text: String, layoutId: String };

const toCatalog = (t: TemplateVersion): CatalogChange => ({
  type: 'catalog.template',
  kind: 'template',
  data: {
    id: t.id,
    clientId: t.clientId,
    revision: t.updatedAt.getTime(),
    projectId: t.projectId,
    name: t.name,
    version: t.version,
    subject: t.parts.subject,
    html: t.parts.html,
    text: t.parts.text,
    ...(typeof t.parts.cheap === 'boolean' ? { cheap: t.parts.cheap } : {}),
    ...(t.parts.format === 'mjml' ? { format: 'mjml' as const } : {}),
    ...(t.parts.layoutId ? { layoutId: t.parts.layoutId } : {}),
    // Each variant with the layout it is sent in: its own, else the template's.
    ...(t.parts.variants.length ? { variants: t.parts.variants.map((v) => ({ ...v, layoutId: v.layoutId ?? t.parts.layoutId })) } : {}),
  },
});

/** Templates of a client's projects: a save appends a version, published at once unless it is a draft. */
export class TemplateRepository extends VersionedStore<TemplateContent> implements CatalogSource, TemplateLookup {
  /** `engine`: what measures templates before they are saved and renders their previews. */
  constructor(
    connection: Connection,
    catalog: CatalogListener,
    readonly engine: TemplateEngine,
  ) {
    super(connection, {
      heads: { model: 'Template', collection: 'templates' },
      versions: { model: 'TemplateVersion', collection: 'template_versions', ownerField: 'templateId' },
      parts: {
        subject: String,
        html: String,
        text: { type: String, default: null },
        cheap: { type: Boolean, default: null },
        format: { type: String, default: 'handlebars' },
        layoutId: { type: String, default: null },
        variants: { type: [variantSchema], default: [], _id: false },
      },
      partsOf: (doc) => ({
        subject: doc['subject'] as string,
        html: doc['html'] as string,
        text: (doc['text'] as string | null | undefined) ?? null,
        cheap: typeof doc['cheap'] === 'boolean' ? doc['cheap'] : null,
        format: doc['format'] === 'mjml' ? 'mjml' : 'handlebars',
        layoutId: (doc['layoutId'] as string | null | undefined) ?? null,
        variants: ((doc['variants'] as TemplateVariantParts[] | undefined) ?? []).map((v) => ({
          language: v.language,
          subject: v.subject,
          html: v.html,
          text: v.text ?? null,
          layoutId: v.layoutId ?? null,
        })),
      }),
      toCatalog,
      deleted: (id, clientId) => deletion('template', id, clientId),
      changed: (change) => catalog.changed(change),
    });
  }

  /** The names of the project's templates whose published version puts its body, or a variant's, in this layout. */
  async publishedUsing(clientId: string, projectId: string, layoutId: string): Promise<string[]> {
    const published = await this.listPublished(clientId, projectId);
    return published
      .filter(({ parts }) => parts.layoutId === layoutId || parts.variants.some((v) => v.layoutId === layoutId))
      .map((t) => t.name);
  }
}
