import type { CatalogLayout, CatalogTemplate, CatalogTemplateVariant } from '@postbus/contracts';
import type { EngineTemplate } from '@postbus/templates';
import type { MessageDoc } from '../message-records';

/**
 * The language the send itself says the recipient reads: the send's `language`, else the
 * trigger's `user.language`. Null: the user is said to have none (the trigger's user names
 * `language: null`), so the default goes; undefined: neither says, and the stored profile may.
 */
export function saidLanguage(message: Pick<MessageDoc, 'language' | 'user'>): string | null | undefined {
  if (message.language !== undefined) return message.language;
  const ofUser = message.user['language'];
  if (typeof ofUser === 'string') return ofUser || null;
  return ofUser === null ? null : undefined;
}

/** A template with no language variants and no layout: rendered as it is, with nothing more to choose or look up. */
export const isPlain = (template: CatalogTemplate): boolean => !template.variants?.length && template.layoutId === undefined;

/**
 * Whether this service's copy of the template is older than the one the gateway planned the send
 * with. The revision says it when the trigger carries one: a publish or a rollback may bring the
 * published version down, never the revision. A trigger without one says the version it saw.
 */
export const isBehind = (template: CatalogTemplate, message: Pick<MessageDoc, 'templateRevision' | 'templateVersion'>): boolean =>
  message.templateRevision !== undefined ? template.revision < message.templateRevision : template.version < (message.templateVersion ?? 0);

/** The layout the chosen parts go in: the variant's own, or for the default the template's; null: none. */
export const layoutIdOf = (template: CatalogTemplate, variant: CatalogTemplateVariant | null): string | null =>
  variant ? variant.layoutId : (template.layoutId ?? null);

/** What the engine renders for a plain template (see isPlain): the template itself, under its id and version. */
export const plainRender = (template: CatalogTemplate): EngineTemplate => ({
  key: `${template.id}:${template.version}`,
  parts: template,
  cheap: template.format === 'mjml' ? false : template.cheap,
});

/**
 * What the engine renders for a template with variants or a layout: the chosen parts (the variant's,
 * or the default's) in the layout, keyed by all that makes them (the engine keeps what it compiled,
 * and where it renders, under the key). An MJML template is compiled on a worker thread.
 */
export function chosenRender(
  template: CatalogTemplate,
  variant: CatalogTemplateVariant | null,
  layout: CatalogLayout | null,
): EngineTemplate {
  const { subject, html, text } = variant ?? template;
  return {
    key: `${template.id}:${template.version}:${variant?.language ?? ''}:${layout ? `${layout.id}:${layout.version}` : ':'}`,
    parts: {
      subject,
      html,
      text,
      ...(template.format !== undefined ? { format: template.format } : {}),
      layout: layout ? { html: layout.html, text: layout.text } : null,
    },
    cheap: template.format === 'mjml' ? false : template.cheap,
  };
}
