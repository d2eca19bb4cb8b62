import { UnprocessableError } from '@postbus/errors';
import { assertProjectDomains, type DomainLookup } from './project-domains';
import type { SenderDomainState } from './sender-address';

const domains: Record<string, SenderDomainState & { kind: 'sender' | 'tracking' }> = {
  dom_s: { id: 'dom_s', domain: 'mail.example.com', status: 'verified', kind: 'sender' },
  dom_p: { id: 'dom_p', domain: 'pending.example.com', status: 'pending', kind: 'sender' },
  dom_t: { id: 'dom_t', domain: 'click.example.com', status: 'verified', kind: 'tracking' },
};
const lookups: string[] = [];
const domainOf: DomainLookup = (_clientId, kind, id) => {
  lookups.push(id);
  const found = domains[id];
  return Promise.resolve(found && found.kind === kind ? found : null);
};

const slugOf = (promise: Promise<void>) =>
  promise.then(
    () => 'ok',
    (e: unknown) => (e instanceof UnprocessableError ? e.slug : String(e)),
  );

describe('assertProjectDomains', () => {
  it("accepts the client's own domains and an address on the verified sender domain", async () => {
    expect(
      await slugOf(
        assertProjectDomains(domainOf, 'cl_1', {
          sender_domain_id: 'dom_s',
          tracking_domain_id: 'dom_t',
          from_email: 'a@mail.example.com',
        }),
      ),
    ).toBe('ok');
  });

  it("refuses a domain that is not the client's, of either kind", async () => {
    expect(await slugOf(assertProjectDomains(domainOf, 'cl_1', { sender_domain_id: 'dom_t' }))).toBe('sender-domain-missing');
    expect(await slugOf(assertProjectDomains(domainOf, 'cl_1', { tracking_domain_id: 'dom_s' }))).toBe('tracking-domain-missing');
  });

  it('checks the kept address when only the sender domain changes, and the kept domain when only the address does', async () => {
    const current = { sender_domain_id: 'dom_s', from_email: 'a@mail.example.com' };
    expect(await slugOf(assertProjectDomains(domainOf, 'cl_1', { sender_domain_id: 'dom_p' }, current))).toBe(
      'from-email-not-on-sender-domain',
    );
    expect(await slugOf(assertProjectDomains(domainOf, 'cl_1', { from_email: 'a@other.com' }, current))).toBe(
      'from-email-not-on-sender-domain',
    );
    expect(await slugOf(assertProjectDomains(domainOf, 'cl_1', { from_email: 'b@mail.example.com' }, current))).toBe('ok');
  });

  it('reads no domain when neither the address nor the domains change, and allows removing the address', async () => {
    lookups.length = 0;
    expect(await slugOf(assertProjectDomains(domainOf, 'cl_1', {}, { sender_domain_id: 'dom_p', from_email: 'a@x.com' }))).toBe('ok');
    expect(
      await slugOf(assertProjectDomains(domainOf, 'cl_1', { from_email: null }, { sender_domain_id: 'dom_p', from_email: 'a@x.com' })),
    ).toBe('ok');
    expect(lookups).toEqual([]);
  });
});
