import { ConfigError, loadConfig } from '@postbus/config';
import { SubmissionConfig } from './config';

describe('the submission service’s configuration', () => {
  it('defaults to development’s ports on 127.0.0.1, 10 MiB messages and the local gateway', () => {
    expect(loadConfig(SubmissionConfig, {})).toMatchObject({
      PORT: 8088,
      SUBMISSION_HOST: '127.0.0.1',
      SUBMISSION_PORT: 2587,
      SUBMISSION_TLS_PORT: 2465,
      SUBMISSION_MAX_MESSAGE_BYTES: 10 * 1024 * 1024,
      SUBMISSION_RECIPIENTS_PER_TRANSACTION: 50,
      GATEWAY_URL: 'http://127.0.0.1:8080',
      SUBMISSION_TLS_KEY_FILE: '',
      SUBMISSION_TLS_CERT_FILE: '',
    });
  });

  it('takes production’s ports and certificate files from the environment', () => {
    expect(
      loadConfig(SubmissionConfig, {
        SUBMISSION_HOST: '0.0.0.0',
        SUBMISSION_PORT: '587',
        SUBMISSION_TLS_PORT: '465',
        SUBMISSION_TLS_KEY_FILE: '/etc/postbus/tls/tls.key',
        SUBMISSION_TLS_CERT_FILE: '/etc/postbus/tls/tls.crt',
      }),
    ).toMatchObject({ SUBMISSION_PORT: 587, SUBMISSION_TLS_PORT: 465, SUBMISSION_TLS_KEY_FILE: '/etc/postbus/tls/tls.key' });
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig(SubmissionConfig, { SUBMISSION_PORT: 'smtp', SUBMISSION_RECIPIENTS_PER_TRANSACTION: '51', GATEWAY_URL: 'gateway:8080' });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'GATEWAY_URL',
      'SUBMISSION_PORT',
      'SUBMISSION_RECIPIENTS_PER_TRANSACTION',
    ]);
  });

  it('describes every variable', () => {
    for (const [name, property] of Object.entries(SubmissionConfig.properties))
      expect({ name, described: Boolean((property as { description?: string }).description) }).toEqual({ name, described: true });
  });
});
