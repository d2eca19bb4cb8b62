import { checkRecords, generateDkimKey, ownershipRecord, ownershipRequired, requiredRecords, trackingRecords } from './dns-records';

describe('sender domain records', () => {
  const records = requiredRecords('shop.example', 'pb202611', 'KEYKEY', 'spf.postbus.test', 'mx.postbus.test');

  it('names SPF, DKIM and DMARC records to publish, and the return-path domain’s MX and SPF', () => {
    expect(records.map((r) => [r.purpose, r.type, r.name, r.required])).toEqual([
      ['spf', 'TXT', 'shop.example', true],
      ['dkim', 'TXT', 'pb202611._domainkey.shop.example', true],
      ['dmarc', 'TXT', '_dmarc.shop.example', false],
      ['return_path_mx', 'MX', 'pb-bounces.shop.example', false],
      ['return_path_spf', 'TXT', 'pb-bounces.shop.example', false],
    ]);
    expect(records[1]!.value).toBe('v=DKIM1; k=rsa; p=KEYKEY');
    expect(records[3]!.value).toBe('10 mx.postbus.test');
  });

  it('says the bounces go unread while the return-path MX is missing or points elsewhere, and accepts it published', () => {
    const missing = checkRecords(records, 'spf.postbus.test', new Map());
    expect(missing[3]).toMatchObject({ ok: false, required: false, detail: expect.stringContaining('go unread') });
    expect(missing[4]).toMatchObject({ ok: false, required: false, detail: expect.stringContaining('return-path domain') });
    const elsewhere = checkRecords(records, 'spf.postbus.test', new Map([['MX pb-bounces.shop.example', ['10 mail.other.example']]]));
    expect(elsewhere[3]).toMatchObject({ ok: false, detail: expect.stringContaining('not to mx.postbus.test') });
    const published = checkRecords(
      records,
      'spf.postbus.test',
      new Map([
        ['MX pb-bounces.shop.example', ['5 MX.Postbus.Test.']],
        ['pb-bounces.shop.example', ['v=spf1 include:spf.postbus.test ~all']],
      ]),
    );
    expect([published[3]!.ok, published[4]!.ok]).toEqual([true, true]);
  });

  it('reports each record: a wrong DKIM key and an SPF record without the include', () => {
    const answers = new Map([
      ['shop.example', ['v=spf1 include:_spf.google.com ~all', 'google-site-verification=x']],
      ['pb202611._domainkey.shop.example', ['v=DKIM1; k=rsa; p=OTHERKEY']],
    ]);
    const [spf, dkim, dmarc] = checkRecords(records, 'spf.postbus.test', answers);
    expect(spf).toMatchObject({
      ok: false,
      found: ['v=spf1 include:_spf.google.com ~all'],
      detail: expect.stringContaining('include:spf.postbus.test'),
    });
    expect(dkim).toMatchObject({ ok: false, found: ['v=DKIM1; k=rsa; p=OTHERKEY'] });
    expect(dmarc).toMatchObject({ ok: false, required: false, found: [] });
  });

  it('accepts the published records, whitespace in the key aside', () => {
    const answers = new Map([
      ['shop.example', ['v=spf1 a mx include:spf.postbus.test -all']],
      ['pb202611._domainkey.shop.example', ['v=DKIM1; k=rsa; p=KEY KEY']],
      ['_dmarc.shop.example', ['v=DMARC1; p=quarantine']],
    ]);
    expect(checkRecords(records, 'spf.postbus.test', answers).map((c) => c.ok)).toEqual([true, true, true, false, false]);
  });

  it('checks a tracking CNAME, trailing dot and case aside', () => {
    const records = trackingRecords('links.shop.example', 'track.postbus.test');
    expect(checkRecords(records, '', new Map([['links.shop.example', ['Track.Postbus.Test.']]]))[0]).toMatchObject({ ok: true });
    expect(checkRecords(records, '', new Map([['links.shop.example', ['other.example']]]))[0]).toMatchObject({
      ok: false,
      found: ['other.example'],
    });
  });

  it('asks a tracking domain for its ownership token always, a sender domain only when another client added it first', () => {
    expect(ownershipRequired('tracking', false)).toBe(true);
    expect(ownershipRequired('tracking', true)).toBe(true);
    expect(ownershipRequired('sender', false)).toBe(false);
    expect(ownershipRequired('sender', true)).toBe(true);
  });

  it('a tracking CNAME without the client’s token leaves the required ownership check failed, saying the CNAME is not enough', () => {
    const records = [...trackingRecords('links.shop.example', 'track.postbus.test'), ownershipRecord('links.shop.example', 'mine', true)];
    const answers = new Map([
      ['links.shop.example', ['track.postbus.test']],
      ['_postbus.links.shop.example', ['postbus-verification=theirs']],
    ]);
    const [cname, ownership] = checkRecords(records, '', answers);
    expect(cname).toMatchObject({ ok: true });
    expect(ownership).toMatchObject({
      ok: false,
      required: true,
      found: ['postbus-verification=theirs'],
      detail: expect.stringContaining('CNAME alone'),
    });
    answers.set('_postbus.links.shop.example', ['postbus-verification=theirs', 'postbus-verification=mine']);
    expect(checkRecords(records, '', answers)[1]).toMatchObject({ ok: true });
  });

  it('generates an RSA-2048 key with a dated selector', async () => {
    const key = await generateDkimKey(new Date('2026-11-22T00:00:00Z'));
    expect(key.selector).toBe('pb202611');
    expect(Buffer.from(key.publicKey, 'base64').length).toBeGreaterThan(290);
    expect(key.privateKeyPem).toMatch(/BEGIN PRIVATE KEY/);
  });
});
