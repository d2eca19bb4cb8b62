import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig } from './index';

const schema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'HTTP port' }),
  NAME: Type.String({ minLength: 1 }),
});

describe('loadConfig', () => {
  it('when variables are valid, then it coerces them and applies defaults', () => {
    const config = loadConfig(schema, { NAME: 'gw' });
    expect(config).toEqual({ PORT: 8080, NAME: 'gw' });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('when several variables are bad, then every one is named in one error', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: 'eighty' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('PORT');
    expect(problems).toContain('HTTP port');
    expect(problems).toContain('NAME');
  });
});
