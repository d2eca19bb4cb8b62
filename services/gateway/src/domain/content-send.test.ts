import { AppError } from '@postbus/errors';
import { acceptContentSend, parseSender, type ContentAcceptance } from './content-send';

const P = 'p1';

const acceptance = (overrides: Partial<ContentAcceptance> = {}): ContentAcceptance => ({
  plan: () => Promise.resolve({ senderDomain: 'mail.example.com', trackOpens: true, trackClicks: false }),
  storeAttachments: () => Promise.resolve(),
  newMessageId: () => 'msg_1',
  now: new Date('2026-12-04T12:00:00.000Z'),
  test: false,
  source: 'api',
  isAddress: (address) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(address),
  ...overrides,
});

const problemOf = async (run: Promise<unknown>) => {
  try {
    await run;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).toProblem();
  }
  throw new Error('nothing was refused');
};

describe('parseSender', () => {
  it.each([
    ['shop@mail.example.com', { name: null, address: 'shop@mail.example.com' }],
    ['Acme Billing <billing@mail.example.com>', { name: 'Acme Billing', address: 'billing@mail.example.com' }],
    ['"Doe, Jane \\"JD\\"" <jane@mail.example.com>', { name: 'Doe, Jane "JD"', address: 'jane@mail.example.com' }],
    ['<bare@mail.example.com>', { name: null, address: 'bare@mail.example.com' }],
  ])('reads %s', (from, expected) => {
    expect(parseSender(from)).toEqual(expected);
  });

  it.each(['two words@example.com', 'A <b@example.com> C', 'Name <a@b.com', ''])('refuses %j', (from) => {
    expect(parseSender(from)).toBeUndefined();
  });
});

describe('acceptContentSend', () => {
  it('makes a trigger whose recipient is the first to, with the content, the project tracking and the source', async () => {
    const { key, command } = await acceptContentSend(
      P,
      { to: ['Ann@Example.org', 'Bea@Example.org'], subject: 'Receipt', html: '<p>Thanks</p>', cc: ['cy@example.org'], track_clicks: true },
      acceptance({ source: 'smtp', test: true }),
    );
    expect(key).toBe('p1:ann@example.org');
    expect(command).toEqual({
      messageId: 'msg_1',
      projectId: P,
      content: { subject: 'Receipt', html: '<p>Thanks</p>', trackOpens: true, trackClicks: true },
      source: 'smtp',
      unregistered: true,
      user: { email: 'ann@example.org' },
      data: {},
      acceptedAt: '2026-12-04T12:00:00.000Z',
      to: ['bea@example.org'],
      cc: ['cy@example.org'],
      test: true,
    });
  });

  it('refuses a send without html or text, bodies over their bytes, and a From that is no address, each by its field', async () => {
    const problem = await problemOf(acceptContentSend(P, { to: 'a@example.org', subject: 'x', from: 'not an address' }, acceptance()));
    expect(problem.status).toBe(422);
    expect(problem.errors?.map((e) => e.pointer)).toEqual(['/html', '/from']);
    // 200,000 characters of three bytes each: within the schema's characters, over 256 KB as UTF-8.
    const large = await problemOf(acceptContentSend(P, { to: 'a@example.org', subject: 'x', text: '€'.repeat(200_000) }, acceptance()));
    expect(large.errors).toEqual([{ pointer: '/text', message: 'must be at most 256 KB as UTF-8' }]);
  });

  it("refuses a From off the project's verified sender domain with a 422 naming both domains", async () => {
    const problem = await problemOf(
      acceptContentSend(P, { to: 'a@example.org', subject: 'x', text: 'x', from: 'Shop <shop@elsewhere.example>' }, acceptance()),
    );
    expect(problem).toMatchObject({ status: 422, errors: [{ pointer: '/from' }] });
    expect(problem.detail).toContain('mail.example.com');
    expect(problem.detail).toContain('elsewhere.example');
  });

  it('takes a user only as the recipient, and registers it (no unregistered flag)', async () => {
    const mismatch = await problemOf(
      acceptContentSend(P, { to: 'a@example.org', subject: 'x', text: 'x', user: { email: 'b@example.org' } }, acceptance()),
    );
    expect(mismatch.errors?.map((e) => e.pointer)).toEqual(['/user/email']);
    const { command } = await acceptContentSend(
      P,
      { to: 'A@example.org', subject: 'x', text: 'x', user: { email: 'a@example.org', name: 'Ann' } },
      acceptance(),
    );
    expect(command.user).toEqual({ email: 'a@example.org', name: 'Ann' });
    expect(command).not.toHaveProperty('unregistered');
  });
});
