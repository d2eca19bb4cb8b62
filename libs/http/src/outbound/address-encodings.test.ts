import { AddressPolicy, canonicalIp, formatIpAddress, parseIpAddress, UnsafeAddressError } from './address-policy';
import { fakeDns, refusal } from '../../test/address-checks';

/**
 * Every way of writing an internal address that a URL or a resolver can carry: as the URL's host
 * (refused without DNS, the message naming the address) and as what a name resolves to (refused at
 * check and at connect time, the message naming only the kind).
 */
describe('the encodings of internal addresses', () => {
  // [URL, refusal of the literal, kind when a name resolves to it, the address as a resolver could answer]
  const cases: Array<[string, string, string, string]> = [
    // IPv4 forms the WHATWG URL parser normalises (decimal, octal, hex, shortened)
    ['http://2130706433/', '127.0.0.1 is a loopback address', 'a loopback address', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1 is a loopback address', 'a loopback address', '0177.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1 is a loopback address', 'a loopback address', '0x7f000001'],
    ['http://017700000001/', '127.0.0.1 is a loopback address', 'a loopback address', '017700000001'],
    ['http://127.1/', '127.0.0.1 is a loopback address', 'a loopback address', '127.1'],
    ['http://0/', '0.0.0.0 is an unspecified address', 'an unspecified address', '0.0.0.0'],
    ['http://10.1/', '10.0.0.1 is a private address', 'a private address', '10.1'],
    ['http://2852039166/', '169.254.169.254 is a cloud metadata address', 'a cloud metadata address', '2852039166'],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254 is a cloud metadata address', 'a cloud metadata address', '0xa9.0xfe.0xa9.0xfe'],
    // IPv4-compatible IPv6 (::a.b.c.d): deprecated, refused whatever it holds
    [
      'http://[::127.0.0.1]:8025/',
      '::7f00:1 is an IPv4-compatible address of 127.0.0.1, a loopback address',
      'an IPv4-compatible address of a loopback address',
      '::127.0.0.1',
    ],
    [
      'http://[::169.254.169.254]/',
      '::a9fe:a9fe is an IPv4-compatible address of 169.254.169.254, a cloud metadata address',
      'an IPv4-compatible address of a cloud metadata address',
      '::a9fe:a9fe',
    ],
    [
      'http://[0:0:0:0:0:0:10.0.0.1]/',
      '::a00:1 is an IPv4-compatible address of 10.0.0.1, a private address',
      'an IPv4-compatible address of a private address',
      '0:0:0:0:0:0:a00:1',
    ],
    ['http://[::8.8.8.8]/', '::808:808 is an IPv4-compatible address', 'an IPv4-compatible address', '::8.8.8.8'],
    // IPv4-mapped IPv6 (::ffff:a.b.c.d), dotted and hex: judged as the IPv4 address it is
    ['http://[::ffff:127.0.0.1]/', '127.0.0.1 is a loopback address', 'a loopback address', '::ffff:127.0.0.1'],
    ['http://[::ffff:7f00:1]/', '127.0.0.1 is a loopback address', 'a loopback address', '::ffff:7f00:1'],
    ['http://[::FFFF:A9FE:A9FE]/', '169.254.169.254 is a cloud metadata address', 'a cloud metadata address', '::FFFF:A9FE:A9FE'],
    ['http://[0:0:0:0:0:ffff:c0a8:101]/', '192.168.1.1 is a private address', 'a private address', '0:0:0:0:0:ffff:192.168.1.1'],
    // IPv4-translated (::ffff:0:a.b.c.d)
    ['http://[::ffff:0:127.0.0.1]/', '::ffff:0:7f00:1 is an IPv4-translated address', 'an IPv4-translated address', '::ffff:0:7f00:1'],
    // NAT64, the well-known prefix judged by what it embeds, the local-use one refused
    [
      'http://[64:ff9b::127.0.0.1]/',
      '64:ff9b::7f00:1 is a NAT64 address of 127.0.0.1, a loopback address',
      'a NAT64 address of a loopback address',
      '64:ff9b::7f00:1',
    ],
    [
      'http://[64:ff9b::a9fe:a9fe]/',
      '64:ff9b::a9fe:a9fe is a NAT64 address of 169.254.169.254, a cloud metadata address',
      'a NAT64 address of a cloud metadata address',
      '64:ff9b::169.254.169.254',
    ],
    [
      'http://[64:ff9b::6440:1]/',
      '64:ff9b::6440:1 is a NAT64 address of 100.64.0.1, a carrier-grade NAT address',
      'a NAT64 address of a carrier-grade NAT address',
      '64:ff9b::6440:1',
    ],
    ['http://[64:ff9b:1::7f00:1]/', '64:ff9b:1::7f00:1 is a local-use NAT64 address', 'a local-use NAT64 address', '64:ff9b:1::7f00:1'],
    [
      'http://[64:ff9b:1:ff::8.8.8.8]/',
      '64:ff9b:1:ff::808:808 is a local-use NAT64 address',
      'a local-use NAT64 address',
      '64:ff9b:1:ff::808:808',
    ],
    // 6to4 (2002::/16, the IPv4 address in bits 16-48): deprecated, refused whatever it holds
    [
      'http://[2002:7f00:1::]/',
      '2002:7f00:1:: is a 6to4 address of 127.0.0.1, a loopback address',
      'a 6to4 address of a loopback address',
      '2002:7f00:1::',
    ],
    [
      'http://[2002:a9fe:a9fe::1]/',
      '2002:a9fe:a9fe::1 is a 6to4 address of 169.254.169.254, a cloud metadata address',
      'a 6to4 address of a cloud metadata address',
      '2002:a9fe:a9fe::1',
    ],
    ['http://[2002:808:808::1]/', '2002:808:808::1 is a 6to4 address', 'a 6to4 address', '2002:808:808::1'],
    // Teredo
    [
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2 is a Teredo address',
      'a Teredo address',
      '2001::4136:e378:8000:63bf:3fff:fdd2',
    ],
    // ISATAP interface identifiers carrying an internal IPv4 address
    [
      'http://[2001:470:1:1:0:5efe:a00:1]/',
      '2001:470:1:1:0:5efe:a00:1 is an ISATAP address of 10.0.0.1, a private address',
      'an ISATAP address of a private address',
      '2001:470:1:1:0:5efe:10.0.0.1',
    ],
    [
      'http://[2001:470:1:1:200:5efe:7f00:1]/',
      '2001:470:1:1:200:5efe:7f00:1 is an ISATAP address of 127.0.0.1, a loopback address',
      'an ISATAP address of a loopback address',
      '2001:470:1:1:200:5efe:7f00:1',
    ],
    // the other special-purpose ranges
    ['http://172.31.255.255/', '172.31.255.255 is a private address', 'a private address', '172.31.255.255'],
    ['http://100.127.255.254/', '100.127.255.254 is a carrier-grade NAT address', 'a carrier-grade NAT address', '100.127.255.254'],
    ['http://192.0.0.8/', '192.0.0.8 is an IETF protocol assignment address', 'an IETF protocol assignment address', '192.0.0.8'],
    ['http://192.0.2.1/', '192.0.2.1 is a documentation address', 'a documentation address', '192.0.2.1'],
    ['http://198.51.100.7/', '198.51.100.7 is a documentation address', 'a documentation address', '198.51.100.7'],
    ['http://203.0.113.9/', '203.0.113.9 is a documentation address', 'a documentation address', '203.0.113.9'],
    ['http://198.19.255.255/', '198.19.255.255 is a benchmarking address', 'a benchmarking address', '198.19.255.255'],
    ['http://192.88.99.1/', '192.88.99.1 is a 6to4 relay anycast address', 'a 6to4 relay anycast address', '192.88.99.1'],
    ['http://239.255.255.250/', '239.255.255.250 is a multicast address', 'a multicast address', '239.255.255.250'],
    ['http://[::]/', ':: is an unspecified address', 'an unspecified address', '::'],
    ['http://[0:0:0:0:0:0:0:1]/', '::1 is a loopback address', 'a loopback address', '0:0:0:0:0:0:0:1'],
    ['http://[fd12:3456::1]/', 'fd12:3456::1 is a unique-local address', 'a unique-local address', 'fd12:3456::1'],
    ['http://[fe80::1]/', 'fe80::1 is a link-local address', 'a link-local address', 'fe80::1%eth0'],
    ['http://[fec0::1]/', 'fec0::1 is a site-local address', 'a site-local address', 'fec0::1'],
    ['http://[ff02::1]/', 'ff02::1 is a multicast address', 'a multicast address', 'ff02::1'],
    ['http://[100::1]/', '100::1 is a discard-only address', 'a discard-only address', '100::1'],
    ['http://[2001:2::1]/', '2001:2::1 is a benchmarking address', 'a benchmarking address', '2001:2::1'],
    ['http://[2001:db8::1]/', '2001:db8::1 is a documentation address', 'a documentation address', '2001:db8::1'],
    ['http://[3fff::1]/', '3fff::1 is a documentation address', 'a documentation address', '3fff::1'],
    ['http://[2001:20::1]/', '2001:20::1 is an ORCHID address', 'an ORCHID address', '2001:20::1'],
    ['http://[4000::1]/', '4000::1 is a reserved address', 'a reserved address', '4000::1'],
    ['http://[::2:3:4:5:6]/', '::2:3:4:5:6 is a reserved address', 'a reserved address', '::2:3:4:5:6'],
  ];

  it.each(cases)('when the URL is %s, it is refused without DNS: %s', async (url, message) => {
    const resolver = fakeDns({});
    expect(await refusal(new AddressPolicy([], resolver), url)).toBe(message);
    expect(resolver).not.toHaveBeenCalled();
  });

  it.each(cases)(
    'when a name resolves to the address of %s, it is refused at check and at connect time',
    async (_url, _message, kind, address) => {
      const family = address.includes(':') ? 6 : 4;
      const p = new AddressPolicy([], fakeDns({ 'x.example': [{ address, family }] }));
      expect(await refusal(p, 'https://x.example/hook')).toBe(`x.example resolves to ${kind}`);
      const error = await new Promise<Error | null>((resolve) => p.lookup('x.example', {}, (e: Error | null) => resolve(e)));
      expect(error).toBeInstanceOf(UnsafeAddressError);
      expect(error?.message).toBe(`x.example resolves to ${kind}`);
    },
  );

  it('when an address is public, in any of these forms, it is allowed', async () => {
    for (const url of [
      'http://8.8.8.8/',
      'http://134744072/',
      'http://172.32.0.1/',
      'http://[::ffff:808:808]/',
      'http://[64:ff9b::8.8.8.8]/',
      'http://[2001:470:1:1:0:5efe:808:808]/',
      'http://[2a00:1450:4001:80b::200e]/',
    ]) {
      expect(await refusal(policy(), url)).toBeUndefined();
    }
    const resolving = new AddressPolicy([], fakeDns({ 'x.example': [{ address: '::ffff:8.8.8.8', family: 6 }] }));
    expect(await refusal(resolving, 'https://x.example/')).toBeUndefined();
  });

  it('when a host admitted on some ports is written in another form, the admission holds on those ports only', async () => {
    const local = new AddressPolicy(['127.0.0.1:9000-9099']);
    expect(await refusal(local, 'http://2130706433:9000/')).toBeUndefined();
    expect(await refusal(local, 'http://[::ffff:127.0.0.1]:9000/')).toBeUndefined();
    expect(await refusal(local, 'http://[::127.0.0.1]:9000/')).toBe(
      '::7f00:1 is an IPv4-compatible address of 127.0.0.1, a loopback address',
    );
    expect(await refusal(local, 'http://0x7f.1:8025/')).toBe('127.0.0.1 is a loopback address');
    expect(local.admits('0x7f.0.0.1', 9050)).toBe(true);
    expect(local.admits('127.0.0.1', 8081)).toBe(false);
  });

  it('when an allowed-hosts entry names an impossible port range, the error names the variable it came from', () => {
    expect(() => new AddressPolicy(['localhost:0'], undefined, { setting: 'STATUS_WEBHOOK_ALLOWED_HOSTS' })).toThrow(
      'STATUS_WEBHOOK_ALLOWED_HOSTS: localhost:0 names no valid port range',
    );
  });

  it('says why it refused: the scheme, a host that does not resolve, or an address', async () => {
    const reasonOf = async (p: AddressPolicy, url: string) => {
      try {
        await p.check(new URL(url));
        return undefined;
      } catch (error) {
        return (error as UnsafeAddressError).reason;
      }
    };
    const p = new AddressPolicy([], fakeDns({ 'db.example': [{ address: '10.0.0.1', family: 4 }] }));
    expect(await reasonOf(p, 'ftp://example.com/')).toBe('scheme');
    expect(await reasonOf(p, 'http://nowhere.invalid/')).toBe('unresolved');
    expect(await reasonOf(p, 'http://db.example/')).toBe('address');
    expect(await reasonOf(p, 'http://[::1]/')).toBe('address');
  });
});

describe('IP address text', () => {
  it('is read in every form a URL or a resolver writes, and nothing else', () => {
    expect(parseIpAddress('2130706433')).toEqual([127, 0, 0, 1]);
    expect(parseIpAddress('0x7f.1')).toEqual([127, 0, 0, 1]);
    expect(parseIpAddress('[::1]')).toEqual([...new Array<number>(15).fill(0), 1]);
    expect(parseIpAddress('fe80::1%eth0')?.slice(0, 2)).toEqual([0xfe, 0x80]);
    for (const text of [
      'example.com',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.2.3.256',
      '4294967296',
      '08.1.1.1',
      '1::2::3',
      ':::',
      '::1.2.3',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8:9',
      '12345::1',
      '::ffff:1.2.3.4.5',
      '',
    ])
      expect(parseIpAddress(text)).toBeUndefined();
  });

  it('is written in RFC 5952 form: the longest run of two or more zero words as ::, the first of equal runs', () => {
    const format = (text: string) => formatIpAddress(parseIpAddress(text)!);
    expect(format('2001:0DB8:0000:0000:0001:0000:0000:0001')).toBe('2001:db8::1:0:0:1');
    expect(format('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(format('2001:0:0:1:0:0:0:1')).toBe('2001:0:0:1::1');
    expect(format('0:0:0:0:0:0:0:0')).toBe('::');
    expect(format('1:0:0:0:0:0:0:0')).toBe('1::');
    expect(format('::ffff:10.0.0.1')).toBe('::ffff:a00:1');
    expect(canonicalIp('[::ffff:10.0.0.1]')).toBe('10.0.0.1');
    expect(canonicalIp('localhost')).toBeUndefined();
  });
});

const policy = () => new AddressPolicy([]);
