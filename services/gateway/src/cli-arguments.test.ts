import { parseCliArguments, USAGE, UsageError } from './cli-arguments';

const usageError = (argv: string[]): string => {
  try {
    parseCliArguments(argv);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
};

describe('the operator CLI arguments', () => {
  it('refuse a client whose first key would have scope test, naming the allowed scopes and where test keys are made', () => {
    const message = usageError(['clients', 'create', '--name', 'Acme', '--scope', 'test']);
    expect(message).toMatch(/scope full or sdk/);
    expect(message).toContain('postbus keys create --client CLIENT_ID --name NAME --scope test');
    expect(message).toContain('POST /v1/keys');
  });

  it('make a client with a first key of scope full by default, or sdk', () => {
    expect(parseCliArguments(['clients', 'create', '--name', ' Acme '])).toEqual({
      command: 'clients create',
      name: 'Acme',
      scope: 'full',
      json: false,
    });
    expect(parseCliArguments(['clients', 'create', '--name', 'Canary', '--scope', 'sdk', '--json'])).toMatchObject({
      scope: 'sdk',
      json: true,
    });
    expect(usageError(['clients', 'create', '--name', 'Acme', '--scope', 'admin'])).toBe('--scope must be one of full, sdk');
  });

  it('make a test key for an existing client, as POST /v1/keys does', () => {
    expect(parseCliArguments(['keys', 'create', '--client', 'cl_1', '--name', 'CI', '--scope', 'test'])).toEqual({
      command: 'keys create',
      clientId: 'cl_1',
      name: 'CI',
      scope: 'test',
      json: false,
    });
    expect(usageError(['keys', 'create', '--client', 'cl_1', '--name', 'CI', '--scope', 'root'])).toBe(
      '--scope must be one of full, sdk, test',
    );
  });

  it('name a missing argument, and take an unknown option for a usage error rather than a crash', () => {
    expect(usageError(['clients', 'create'])).toBe('--name is required');
    expect(usageError(['keys', 'list'])).toBe('--client is required');
    expect(usageError(['keys', 'revoke', '--client', 'cl_1'])).toBe('KEY_ID is required');
    expect(usageError(['keys', 'list', '--client', 'cl_1', '--colour'])).toMatch(/--colour/);
    expect(parseCliArguments(['keys', 'revoke', '--client', 'cl_1', 'key_1', '--force'])).toMatchObject({ keyId: 'key_1', force: true });
  });

  it('answer help when asked, and for an unknown command', () => {
    expect(parseCliArguments(['--help'])).toEqual({ help: true, asked: true });
    expect(parseCliArguments(['clients', 'delete'])).toEqual({ help: true, asked: false });
    expect(USAGE).toContain('postbus clients create --name NAME [--scope full|sdk] [--json]');
    expect(USAGE).toContain('postbus keys create --client CLIENT_ID --name NAME [--scope full|sdk|test] [--json]');
  });
});
