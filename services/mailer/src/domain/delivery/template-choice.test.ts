import type { CatalogLayout, CatalogTemplate } from '@postbus/contracts';
import { variantFor } from '@postbus/templates';
import { chosenRender, isBehind, isPlain, layoutIdOf, plainRender, saidLanguage } from './template-choice';

const template = (changes: Partial<CatalogTemplate> = {}): CatalogTemplate => ({
  id: 't1',
  clientId: 'c1',
  revision: 5,
  projectId: 'p1',
  name: 'Welcome',
  version: 3,
  subject: 'Hello',
  html: '<p>Hello</p>',
  text: null,
  cheap: true,
  ...changes,
});
const variant = (language: string, layoutId: string | null = null) => ({
  language,
  subject: `${language} subject`,
  html: `<p>${language}</p>`,
  text: `${language} text`,
  layoutId,
});
const layout: CatalogLayout = {
  id: 'l1',
  clientId: 'c1',
  revision: 9,
  projectId: 'p1',
  version: 4,
  html: '<div>{{{content}}}</div>',
  text: null,
};
const variants = [variant('de'), variant('pt', 'l2'), variant('zh-Hant')];

describe('the language wanted', () => {
  it("is the send's, else the trigger's user's, else unsaid (the stored profile may say)", () => {
    expect(saidLanguage({ language: 'de', user: { language: 'pt' } })).toBe('de');
    expect(saidLanguage({ user: { email: 'a@example.org', language: 'pt-BR' } })).toBe('pt-BR');
    expect(saidLanguage({ user: { email: 'a@example.org' } })).toBeUndefined();
    expect(saidLanguage({ user: { email: 'a@example.org', language: 42 } })).toBeUndefined();
  });

  it("is none (the default, no profile read) when the trigger's user has no language", () => {
    expect(saidLanguage({ user: { language: null } })).toBeNull();
    expect(saidLanguage({ user: { language: '' } })).toBeNull();
  });
});

describe('the variant a send renders (variantFor over the catalog template)', () => {
  it('is the exact tag in any case, then the primary subtag, then the default', () => {
    expect(variantFor(variants, 'DE')?.language).toBe('de');
    expect(variantFor(variants, 'zh-hant')?.language).toBe('zh-Hant');
    expect(variantFor(variants, 'pt-BR')?.language).toBe('pt');
    expect(variantFor(variants, 'fr')).toBeNull();
    expect(variantFor(variants, null)).toBeNull();
  });
});

describe('what the engine renders', () => {
  it('a plain template is the template itself under its id and version, cheap as measured', () => {
    const plain = template();
    expect(isPlain(plain)).toBe(true);
    expect(plainRender(plain)).toEqual({ key: 't1:3', parts: plain, cheap: true });
    expect(isPlain(template({ variants: [] }))).toBe(true);
  });

  it('an MJML template is never cheap: it compiles on a worker thread', () => {
    expect(plainRender(template({ format: 'mjml' })).cheap).toBe(false);
    expect(chosenRender(template({ format: 'mjml' }), null, null)).toMatchObject({ cheap: false, parts: { format: 'mjml' } });
  });

  it("a variant's parts in its layout, keyed by the template's version, the language and the layout's version", () => {
    const withVariants = template({ variants, layoutId: 'l1' });
    expect(isPlain(withVariants)).toBe(false);
    expect(chosenRender(withVariants, variants[1]!, layout)).toEqual({
      key: 't1:3:pt:l1:4',
      parts: { subject: 'pt subject', html: '<p>pt</p>', text: 'pt text', layout: { html: '<div>{{{content}}}</div>', text: null } },
      cheap: true,
    });
    // The default's parts, in no layout: a key of its own.
    expect(chosenRender(withVariants, null, null)).toEqual({
      key: 't1:3:::',
      parts: { subject: 'Hello', html: '<p>Hello</p>', text: null, layout: null },
      cheap: true,
    });
    expect(chosenRender(withVariants, null, layout).key).toBe('t1:3::l1:4');
  });

  it("takes the variant's own layout, and the template's for the default", () => {
    const framed = template({ layoutId: 'l1', variants });
    expect(layoutIdOf(framed, null)).toBe('l1');
    expect(layoutIdOf(framed, variants[1]!)).toBe('l2');
    expect(layoutIdOf(framed, variants[0]!)).toBeNull();
    expect(layoutIdOf(template(), null)).toBeNull();
    expect(isPlain(template({ layoutId: 'l1' }))).toBe(false);
  });
});

describe("whether the projection's template is behind the send's", () => {
  it('compares revisions when the trigger names one: a rollback publishes an older version under a newer revision', () => {
    expect(isBehind(template({ version: 1, revision: 6 }), { templateVersion: 3, templateRevision: 6 })).toBe(false);
    expect(isBehind(template({ version: 4, revision: 5 }), { templateVersion: 4, templateRevision: 6 })).toBe(true);
  });

  it('compares versions for a trigger without a revision', () => {
    expect(isBehind(template({ version: 3 }), { templateVersion: 3 })).toBe(false);
    expect(isBehind(template({ version: 2 }), { templateVersion: 3 })).toBe(true);
    expect(isBehind(template({ version: 1 }), {})).toBe(false);
  });
});
