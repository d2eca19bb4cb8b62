import { LOCAL_WEBHOOK_ALLOWED_HOSTS } from '@postbus/testing';
import { AddressPolicy, UnsafeAddressError, unsafeKind } from './address-policy';
import { fakeDns, refusal } from '../../test/address-checks';

describe('AddressPolicy', () => {
  const policy = new AddressPolicy([]);

  describe('when the URL host is an IP literal', () => {
    it.each([
      ['http://10.0.0.1/hook', '10.0.0.1 is a private address'],
      ['http://192.168.1.1/hook', '192.168.1.1 is a private address'],
      ['http://127.0.0.1:8080/hook', '127.0.0.1 is a loopback address'],
      ['http://[::1]/hook', '::1 is a loopback address'],
      ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a cloud metadata address'],
      ['http://169.254.10.1/', '169.254.10.1 is a link-local address'],
      ['http://100.64.0.1/', '100.64.0.1 is a carrier-grade NAT address'],
      ['http://0.0.0.0/', '0.0.0.0 is an unspecified address'],
      ['http://[fd00:ec2::254]/', 'fd00:ec2::254 is a cloud metadata address'],
      ['http://[fc00::1]/', 'fc00::1 is a unique-local address'],
      ['http://[fe80::1]/', 'fe80::1 is a link-local address'],
      ['http://[::ffff:10.0.0.1]/', '10.0.0.1 is a private address'],
      ['http://[64:ff9b::a00:1]/', '64:ff9b::a00:1 is a NAT64 address of 10.0.0.1, a private address'],
      ['http://224.0.0.1/', '224.0.0.1 is a multicast address'],
      ['http://255.255.255.255/', '255.255.255.255 is a broadcast address'],
      ['http://240.0.0.1/', '240.0.0.1 is a reserved address'],
      ['http://0x7f.1/', '127.0.0.1 is a loopback address'],
    ])('then %s is refused without DNS (%s)', async (url, message) => {
      const resolver = fakeDns({});
      expect(await refusal(new AddressPolicy([], resolver), url)).toBe(message);
      expect(resolver).not.toHaveBeenCalled();
    });

    it('then a public address is allowed', async () => {
      expect(await refusal(policy, 'https://93.184.216.34/hook')).toBeUndefined();
      expect(await refusal(policy, 'https://[2606:2800:220:1:248:1893:25c8:1946]/hook')).toBeUndefined();
      expect(await refusal(policy, 'http://[64:ff9b::5db8:d822]/hook')).toBeUndefined();
    });
  });

  describe('when the scheme is not http(s)', () => {
    it('then the URL is refused', async () => {
      expect(await refusal(policy, 'ftp://example.com/file')).toMatch(/^ftp URLs are not allowed/);
      expect(await refusal(policy, 'file:///etc/passwd')).toMatch(/^file URLs are not allowed/);
    });
  });

  describe('when the host is a name', () => {
    it('then localhost (resolving to loopback) is refused', async () => {
      expect(await refusal(policy, 'http://localhost:3000/hook')).toBe('localhost resolves to a loopback address');
    });

    it('then a name with any internal address among its addresses is refused', async () => {
      const resolving = new AddressPolicy(
        [],
        fakeDns({
          'mixed.example': [
            { address: '93.184.216.34', family: 4 },
            { address: '10.1.2.3', family: 4 },
          ],
          'public.example': [
            { address: '93.184.216.34', family: 4 },
            { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
          ],
        }),
      );
      expect(await refusal(resolving, 'https://mixed.example/hook')).toBe('mixed.example resolves to a private address');
      expect(await refusal(resolving, 'https://public.example/hook')).toBeUndefined();
    });

    it('13.9 a refused name never echoes what DNS answered, only why it is refused', async () => {
      const resolving = new AddressPolicy(
        [],
        fakeDns({
          'meta.example': [{ address: '169.254.169.254', family: 4 }],
          'nat64.example': [{ address: '64:ff9b::a0b:c0d', family: 6 }],
          'db.example': [{ address: '10.20.30.40', family: 4 }],
        }),
      );
      const refusals = [
        await refusal(resolving, 'https://meta.example/hook'),
        await refusal(resolving, 'https://nat64.example/hook'),
        await refusal(resolving, 'https://db.example/hook'),
      ];
      expect(refusals).toEqual([
        'meta.example resolves to a cloud metadata address',
        'nat64.example resolves to a NAT64 address of a private address',
        'db.example resolves to a private address',
      ]);
      for (const message of refusals) expect(message).not.toMatch(/169\.254|10\.11|10\.20|a0b|\d+\.\d+\.\d+\.\d+/);
    });

    it('then a name that does not resolve is refused', async () => {
      expect(await refusal(new AddressPolicy([], fakeDns({})), 'https://nowhere.invalid/hook')).toBe('nowhere.invalid does not resolve');
    });
  });

  describe('when the operator admits hosts', () => {
    it('then those hosts are allowed, others still refused', async () => {
      const admitting = new AddressPolicy(
        ['127.0.0.1', 'Hooks.Internal', '::1'],
        fakeDns({ 'hooks.internal': [{ address: '10.9.9.9', family: 4 }], 'other.internal': [{ address: '10.9.9.9', family: 4 }] }),
      );
      expect(await refusal(admitting, 'http://127.0.0.1:4000/hook')).toBeUndefined();
      expect(await refusal(admitting, 'http://[::1]:4000/hook')).toBeUndefined();
      expect(await refusal(admitting, 'http://hooks.internal/hook')).toBeUndefined();
      expect(await refusal(admitting, 'http://other.internal/hook')).toBe('other.internal resolves to a private address');
      expect(await refusal(admitting, 'http://10.0.0.1/hook')).toBe('10.0.0.1 is a private address');
    });
  });

  describe('when the operator admits hosts on some ports only', () => {
    // npm start's default: receivers on this machine on 9000-9099, nothing else.
    const local = new AddressPolicy(
      LOCAL_WEBHOOK_ALLOWED_HOSTS.split(','),
      fakeDns({ localhost: [{ address: '127.0.0.1', family: 4 }], 'sneaky.example': [{ address: '127.0.0.1', family: 4 }] }),
    );

    it('13.1 a webhook endpoint on an internal service port is refused', async () => {
      // the services' internal APIs (8081-8085), the gateway's internal listener (8086), the SMTP sink's API (8025)
      for (const port of [8081, 8082, 8083, 8084, 8085, 8086, 8025])
        expect(await refusal(local, `http://127.0.0.1:${port}/internal/clients/cl_a/webhooks`)).toBe('127.0.0.1 is a loopback address');
      expect(await refusal(local, 'http://localhost:8083/internal/clients/cl_a/webhooks')).toBe('localhost resolves to a loopback address');
      expect(await refusal(local, 'http://sneaky.example:8081/internal/projects/x/users')).toBe(
        'sneaky.example resolves to a loopback address',
      );
      expect(await refusal(local, 'http://127.0.0.1/hook')).toBe('127.0.0.1 is a loopback address');
      expect(await refusal(local, 'http://[::1]:8082/hook')).toBe('::1 is a loopback address');
    });

    it('then the admitted ports are allowed', async () => {
      expect(await refusal(local, 'http://127.0.0.1:9000/hook')).toBeUndefined();
      expect(await refusal(local, 'http://localhost:9099/hook')).toBeUndefined();
      expect(await refusal(local, 'http://sneaky.example:9050/hook')).toBeUndefined();
      expect(await refusal(local, 'http://[::1]:9000/hook')).toBeUndefined();
      expect(await refusal(new AddressPolicy(['[::1]:9100', 'hooks.internal:8443']), 'http://[::1]:9100/hook')).toBeUndefined();
    });

    it('then an entry with an impossible port range is refused at start', () => {
      expect(() => new AddressPolicy(['localhost:9099-9000'])).toThrow(
        'WEBHOOK_ALLOWED_HOSTS: localhost:9099-9000 names no valid port range',
      );
      expect(() => new AddressPolicy(['localhost:70000'])).toThrow(/no valid port range/);
    });
  });

  describe('when used as the HTTP lookup', () => {
    const lookup = (p: AddressPolicy, host: string, options: object) =>
      new Promise<{ error: Error | null; args: unknown[] }>((resolve) =>
        p.lookup(host, options, (error: Error | null, ...args: unknown[]) => resolve({ error, args })),
      );

    it('then a name re-pointed at an internal address is refused at connect time', async () => {
      const p = new AddressPolicy([], fakeDns({ 'rebind.example': [{ address: '169.254.169.254', family: 4 }] }));
      const { error } = await lookup(p, 'rebind.example', {});
      expect(error).toBeInstanceOf(UnsafeAddressError);
      expect(error?.message).toBe('rebind.example resolves to a cloud metadata address');
    });

    it('then a public name resolves to one address, or all of them when asked', async () => {
      const addresses = [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ];
      const p = new AddressPolicy([], fakeDns({ 'public.example': addresses }));
      expect(await lookup(p, 'public.example', {})).toEqual({ error: null, args: ['93.184.216.34', 4] });
      expect(await lookup(p, 'public.example', { all: true })).toEqual({ error: null, args: [addresses] });
    });

    it('then an admitted host resolves to its internal address', async () => {
      const admitting = new AddressPolicy(['hooks.internal'], fakeDns({ 'hooks.internal': [{ address: '10.9.9.9', family: 4 }] }));
      expect(await lookup(admitting, 'hooks.internal', {})).toEqual({ error: null, args: ['10.9.9.9', 4] });
    });
  });

  it('names the kind of each unsafe address and nothing for public ones', () => {
    expect(unsafeKind('172.16.5.4')).toBe('a private address');
    expect(unsafeKind('8.8.8.8')).toBeUndefined();
    expect(unsafeKind('::ffff:127.0.0.1')).toBe('a loopback address');
  });
});
