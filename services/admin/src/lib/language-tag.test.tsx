import { LanguageTag } from '@postbus/contracts';
import { LANGUAGE_TAG_MAX_LENGTH, LANGUAGE_TAG_PATTERN, languageTagProblem } from './language-tag';

describe('a language tag typed in the template editor', () => {
  it('is checked with the pattern and length the API validates tags with', () => {
    expect({ pattern: LANGUAGE_TAG_PATTERN, maxLength: LANGUAGE_TAG_MAX_LENGTH }).toEqual({
      pattern: LanguageTag.pattern,
      maxLength: LanguageTag.maxLength,
    });
  });

  it.each(['de', 'pt-BR', 'zh-Hant-TW', 'es-419'])('accepts %s', (tag) => {
    expect(languageTagProblem(tag, ['fr'])).toBeUndefined();
  });

  it.each([
    ['', 'Type a language tag, such as de or pt-BR.'],
    ['d', 'd is not a BCP 47 language tag (such as de, pt-BR).'],
    ['pt_BR', 'pt_BR is not a BCP 47 language tag (such as de, pt-BR).'],
    ['de-', 'de- is not a BCP 47 language tag (such as de, pt-BR).'],
  ])('refuses %j: %s', (tag, problem) => {
    expect(languageTagProblem(tag, [])).toBe(problem);
  });

  it('refuses a language the template has, in any case, naming it as the template writes it', () => {
    expect(languageTagProblem('PT-br', ['de', 'pt-BR'])).toBe('The template has pt-BR already.');
  });
});
