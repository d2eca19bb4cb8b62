import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@postbus/logger';
import { readCertificate, selfSignedCertificate, watchCertificate, type TlsCertificate } from './certificate';

const logger = createLogger({ service: 'smtp-test', level: 'error' });

describe('certificates of SMTP servers', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'smtp-certificate-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = ({ key, cert }: TlsCertificate) => {
    writeFileSync(join(dir, 'key.pem'), key);
    writeFileSync(join(dir, 'cert.pem'), cert);
  };

  it('makes a self-signed certificate for a host, localhost and the loopback addresses, valid a year', async () => {
    const { key, cert } = await selfSignedCertificate('smtp.postbus.test');
    const x509 = new X509Certificate(cert);
    expect(x509.subjectAltName).toBe('DNS:smtp.postbus.test, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(new Date(x509.validTo).getTime() - Date.now()).toBeGreaterThan(360 * 24 * 3600 * 1000);
    expect(x509.checkPrivateKey((await import('node:crypto')).createPrivateKey(key))).toBe(true);
  });

  it('reads a key and certificate that belong together, and refuses a pair that does not', async () => {
    const [one, two] = await Promise.all([selfSignedCertificate('one.test'), selfSignedCertificate('two.test')]);
    write(one);
    expect(readCertificate(join(dir, 'key.pem'), join(dir, 'cert.pem')).cert.toString()).toBe(one.cert.toString());
    writeFileSync(join(dir, 'key.pem'), two.key);
    expect(() => readCertificate(join(dir, 'key.pem'), join(dir, 'cert.pem'))).toThrow();
  });

  it('hands on a new pair once both files have changed, and skips the half-changed one', async () => {
    const [one, two] = await Promise.all([selfSignedCertificate('one.test'), selfSignedCertificate('two.test')]);
    write(one);
    const seen: string[] = [];
    const watch = watchCertificate({
      keyFile: join(dir, 'key.pem'),
      certFile: join(dir, 'cert.pem'),
      intervalMs: 50,
      onChange: (certificate) => seen.push(new X509Certificate(certificate.cert).subject),
      logger,
    });
    try {
      writeFileSync(join(dir, 'key.pem'), two.key);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen).toEqual([]);
      writeFileSync(join(dir, 'cert.pem'), two.cert);
      const deadline = Date.now() + 5_000;
      while (seen.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen).toEqual(['CN=two.test']);
    } finally {
      watch.stop();
    }
  });
});
