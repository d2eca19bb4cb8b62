import type { DnsRecord, RecordCheck } from './dns-records';
import { DomainVerification, normaliseDomain, ownershipAsRequired, type DomainVerificationDeps } from './domain-verification';
import type { DomainDoc } from './ports/domains';

const AT = new Date('2026-01-01T00:00:00.000Z');

function setup(options: { contested?: boolean; answers?: Record<string, string[]> } = {}) {
  const stored = new Map<string, DomainDoc>();
  const withdrawn: { domain: string; provenBy: string }[] = [];
  let next = 0;
  const deps: DomainVerificationDeps = {
    spfInclude: 'spf.postbus.test',
    inboundMxHost: 'mx.postbus.test',
    newToken: () => 'tok',
    now: () => AT,
    dns: { answersFor: () => Promise.resolve(new Map(Object.entries(options.answers ?? {}))) },
    domains: {
      claimedEarlierByAnother: () => Promise.resolve(options.contested ?? false),
      create: (doc) => {
        if ([...stored.values()].some((d) => d.clientId === doc.clientId && d.kind === doc.kind && d.domain === doc.domain))
          return Promise.resolve('exists');
        const created = { ...doc, _id: `d${++next}` };
        stored.set(String(created._id), created);
        return Promise.resolve(created);
      },
      recordCheck: (_clientId, _kind, id, records: DnsRecord[], checks: RecordCheck[], at) => {
        const doc = stored.get(id);
        if (!doc) return Promise.resolve(null);
        const verified = checks.every((c) => c.ok || !c.required);
        Object.assign(doc, { records, checks, checkedAt: at, status: verified ? 'verified' : 'failed' });
        return Promise.resolve({ ...doc });
      },
      withdrawUnproven: (_kind, domain, provenBy) => {
        withdrawn.push({ domain, provenBy });
        return Promise.resolve(0);
      },
    },
  };
  return { verification: new DomainVerification(deps), stored, withdrawn };
}

const tracking = (domain: string) => () =>
  Promise.resolve({
    dkim: null,
    records: [{ purpose: 'tracking', type: 'CNAME', name: domain, value: 'track.postbus.test', required: true }] as DnsRecord[],
  });

describe('DomainVerification', () => {
  it('normalises a domain as the API takes it', () => {
    expect(normaliseDomain('Mail.Example.COM.')).toBe('mail.example.com');
  });

  it('adds a domain with its ownership token, required for a tracking domain or a contested sender domain only', async () => {
    const sender = () => Promise.resolve({ dkim: null, records: [] as DnsRecord[] });
    const first = setup();
    const own = (await first.verification.add('cl_1', 'sender', 'mail.example.com', sender)) as DomainDoc;
    expect(own.records).toEqual([
      { purpose: 'ownership', type: 'TXT', name: '_postbus.mail.example.com', value: 'postbus-verification=tok', required: false },
    ]);
    expect(own).toMatchObject({ status: 'pending', createdAt: AT, checks: null });
    expect(await first.verification.add('cl_1', 'sender', 'mail.example.com', sender)).toBe('exists');
    const contested = (await setup({ contested: true }).verification.add('cl_2', 'sender', 'mail.example.com', sender)) as DomainDoc;
    expect(contested.records.find((r) => r.purpose === 'ownership')!.required).toBe(true);
    const track = (await setup().verification.add('cl_1', 'tracking', 'click.example.com', tracking('click.example.com'))) as DomainDoc;
    expect(track.records.find((r) => r.purpose === 'ownership')!.required).toBe(true);
  });

  it('a tracking domain verifies only with its token, and once proven withdraws the unproven verifications of others', async () => {
    const answers = { 'click.example.com': ['track.postbus.test'] };
    const unproven = setup({ answers });
    const doc = (await unproven.verification.add('cl_1', 'tracking', 'click.example.com', tracking('click.example.com'))) as DomainDoc;
    expect((await unproven.verification.verify(doc))!.status).toBe('failed');
    expect(unproven.withdrawn).toEqual([]);

    const proven = setup({ answers: { ...answers, '_postbus.click.example.com': ['postbus-verification=tok'] } });
    const mine = (await proven.verification.add('cl_1', 'tracking', 'click.example.com', tracking('click.example.com'))) as DomainDoc;
    expect((await proven.verification.verify(mine))!.status).toBe('verified');
    expect(proven.withdrawn).toEqual([{ domain: 'click.example.com', provenBy: 'cl_1' }]);
  });

  it('gives an old sender domain its return-path records at its next check', async () => {
    const { verification } = setup();
    const doc = (await verification.add('cl_1', 'sender', 'mail.example.com', () =>
      Promise.resolve({ dkim: null, records: [] }),
    )) as DomainDoc;
    const checked = await verification.verify(doc);
    expect(checked!.records.map((r) => r.purpose)).toEqual(expect.arrayContaining(['return_path_mx', 'return_path_spf']));
  });

  it('answers null for a domain deleted meanwhile', async () => {
    const { verification, stored } = setup();
    const doc = (await verification.add('cl_1', 'sender', 'mail.example.com', () =>
      Promise.resolve({ dkim: null, records: [] }),
    )) as DomainDoc;
    stored.clear();
    expect(await verification.verify(doc)).toBeNull();
  });

  it('marks the ownership record as the rule says now', () => {
    const records: DnsRecord[] = [{ purpose: 'ownership', type: 'TXT', name: 'n', value: 'v', required: false }];
    expect(ownershipAsRequired(records, true)[0]!.required).toBe(true);
  });
});
