import { classifyDeliveryStatus, classifyNotice, smtpCodes } from './bounce-class';

describe('smtpCodes', () => {
  it('finds the first reply code and enhanced status code in a diagnostic', () => {
    expect(smtpCodes('smtp; 550 5.1.1 <a@b.example>: Recipient address rejected')).toEqual({ reply: 550, enhanced: '5.1.1' });
    expect(smtpCodes('host mx.example said: 452 4.2.2 mailbox full')).toEqual({ reply: 452, enhanced: '4.2.2' });
    expect(smtpCodes('#5.0.0 retry timeout exceeded')).toEqual({ enhanced: '5.0.0' });
  });

  it('reads no code out of numbers that are not one', () => {
    expect(smtpCodes('sent 1550 bytes to 10.5.1.12')).toEqual({});
    expect(smtpCodes(undefined)).toEqual({});
  });
});

describe('classifyDeliveryStatus', () => {
  it('a failed 5.x.x is hard, a delayed or 4.x.x one soft, and a delivery no bounce', () => {
    expect(classifyDeliveryStatus('failed', '5.1.1', 'smtp; 550 5.1.1 user unknown')).toBe('hard');
    expect(classifyDeliveryStatus('failed', '4.4.7', undefined)).toBe('soft');
    expect(classifyDeliveryStatus('delayed', '4.4.1', undefined)).toBe('soft');
    expect(classifyDeliveryStatus('delivered', '2.0.0', undefined)).toBeUndefined();
    expect(classifyDeliveryStatus('relayed', undefined, undefined)).toBeUndefined();
  });

  it('an MTA that gave up retrying a temporary answer reports 5.0.0, which is soft: the mailbox was unreachable, not missing', () => {
    expect(classifyDeliveryStatus('failed', '5.0.0', 'smtp; 451 4.7.1 greylisted, try again later')).toBe('soft');
  });

  it("without a status, the remote server's own reply decides", () => {
    expect(classifyDeliveryStatus('failed', undefined, 'smtp; 550 no such user')).toBe('hard');
    expect(classifyDeliveryStatus('failed', undefined, 'smtp; 421 too busy')).toBe('soft');
  });
});

describe('classifyNotice', () => {
  it('a code in the notice decides before its words', () => {
    expect(classifyNotice('550 5.1.1 mailbox full')).toEqual({ reply: 550, enhanced: '5.1.1', class: 'hard' });
    expect(classifyNotice('452 4.2.2 user unknown')).toMatchObject({ class: 'soft' });
  });

  it('without a code, what it says', () => {
    expect(classifyNotice('Sorry, no such mailbox here.')).toEqual({ class: 'hard' });
    expect(classifyNotice('The recipient is over quota; we will retry.')).toEqual({ class: 'soft' });
    expect(classifyNotice('Thank you for your mail, I am on holiday.')).toBeUndefined();
  });
});
