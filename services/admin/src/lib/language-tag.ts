/**
 * A language as BCP 47 writes it (de, pt-BR, zh-Hant-TW): the API's LanguageTag pattern and length,
 * restated for the browser (the panel bundles no schema code); language-tag.test.tsx compares the two.
 */
export const LANGUAGE_TAG_PATTERN = '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$';
export const LANGUAGE_TAG_MAX_LENGTH = 35;

const LANGUAGE_TAG = new RegExp(LANGUAGE_TAG_PATTERN);

/**
 * Why `tag` cannot be one more language of a template whose languages are `taken`, or undefined
 * when it can: BCP 47 tags compare case-insensitively, as the API compares them.
 */
export function languageTagProblem(tag: string, taken: readonly string[]): string | undefined {
  if (!tag) return 'Type a language tag, such as de or pt-BR.';
  if (tag.length > LANGUAGE_TAG_MAX_LENGTH || !LANGUAGE_TAG.test(tag)) return `${tag} is not a BCP 47 language tag (such as de, pt-BR).`;
  const same = taken.find((language) => language.toLowerCase() === tag.toLowerCase());
  return same === undefined ? undefined : `The template has ${same} already.`;
}
