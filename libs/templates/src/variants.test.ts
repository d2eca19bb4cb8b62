import { variantFor } from './variants';

const variants = [{ language: 'de' }, { language: 'pt' }, { language: 'zh-Hant' }, { language: 'en-GB' }];

describe('variantFor', () => {
  it('takes the exact tag, whatever its case', () => {
    expect(variantFor(variants, 'DE')).toEqual({ language: 'de' });
    expect(variantFor(variants, 'zh-hant')).toEqual({ language: 'zh-Hant' });
    expect(variantFor(variants, 'en-gb')).toEqual({ language: 'en-GB' });
  });

  it("falls back to the tag's primary subtag", () => {
    expect(variantFor(variants, 'pt-BR')).toEqual({ language: 'pt' });
    expect(variantFor(variants, 'de-AT-1996')).toEqual({ language: 'de' });
  });

  it('gives the default (null) when nothing matches, or nothing is wanted', () => {
    expect(variantFor(variants, 'fr')).toBeNull();
    expect(variantFor(variants, 'en-US')).toBeNull(); // en-GB is no match for en-US, nor is there an en
    expect(variantFor(variants, undefined)).toBeNull();
    expect(variantFor(variants, '')).toBeNull();
    expect(variantFor(undefined, 'de')).toBeNull();
  });
});
