import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig, MissingSecretError, RequiredInProduction } from './index';

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

describe('loadConfig in production mode', () => {
  const secrets = Type.Object({
    PORT: Type.Integer({ default: 8080 }),
    SECRETS_KEY: Type.String({ default: '', [RequiredInProduction]: true }),
    TRACKING_SECRET: Type.String({ default: '', [RequiredInProduction]: true }),
    OPTIONAL_NOTE: Type.String({ default: '' }),
  });
  const errorOf = (env: Record<string, string>): unknown => {
    try {
      loadConfig(secrets, env);
    } catch (e) {
      return e;
    }
    return undefined;
  };

  it('13.8 production mode: a missing secret stops the service at start naming it', () => {
    const error = errorOf({ NODE_ENV: 'production', TRACKING_SECRET: 't'.repeat(40) });
    expect(error).toBeInstanceOf(MissingSecretError);
    expect((error as Error).message).toBe('SECRETS_KEY must be set when NODE_ENV=production');
    const both = errorOf({ NODE_ENV: 'production', SECRETS_KEY: '' });
    expect((both as Error).message).toBe('SECRETS_KEY, TRACKING_SECRET must be set when NODE_ENV=production');
    expect((both as Error).message).not.toContain('\n');
  });

  it('when every secret is set, or outside production, then an empty secret is accepted', () => {
    expect(errorOf({ NODE_ENV: 'production', SECRETS_KEY: 'k', TRACKING_SECRET: 't' })).toBeUndefined();
    expect(errorOf({ NODE_ENV: 'development' })).toBeUndefined();
    expect(errorOf({})).toBeUndefined();
  });
});
