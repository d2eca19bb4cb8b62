import { domainOf, fromEmailProblem, type SenderDomainState } from './sender-address';

const verified: SenderDomainState = { id: 'dom_1', domain: 'mail.example.com', status: 'verified' };

describe('the sender address rule', () => {
  it('reads the domain of an address in lower case, without a trailing dot', () => {
    expect(domainOf('Ann@Mail.Example.COM.')).toBe('mail.example.com');
    expect(domainOf('a@b@c.example')).toBe('c.example');
  });

  it('lets a client send only as an address on its own verified sender domain', () => {
    expect(fromEmailProblem('news@mail.example.com', verified)).toBeUndefined();
    expect(fromEmailProblem('News@MAIL.example.com', verified)).toBeUndefined();
  });

  it('refuses another domain, a subdomain, an unverified domain and no domain at all, saying what to do', () => {
    expect(fromEmailProblem('ceo@other.com', verified)).toMatch(/sender domain mail\.example\.com, not other\.com/);
    expect(fromEmailProblem('a@sub.mail.example.com', verified)).toMatch(/not sub\.mail\.example\.com/);
    expect(fromEmailProblem('a@mail.example.com', { ...verified, status: 'pending' })).toMatch(
      /not verified.*\/v1\/sender-domains\/dom_1\/verify/,
    );
    expect(fromEmailProblem('a@mail.example.com', { ...verified, status: 'failed' })).toMatch(/not verified/);
    expect(fromEmailProblem('a@mail.example.com', null)).toMatch(/needs a sender domain: add mail\.example\.com/);
  });
});
