import { addressingOf } from './addressing';

describe('who a submitted message goes to, and how each is shown', () => {
  it('the envelope decides who receives it: those named in To are to (in the To header’s order), in Cc cc, in neither bcc', () => {
    expect(
      addressingOf(
        ['hidden@example.org', 'second@example.org', 'copy@example.org', 'first@example.org'],
        ['first@example.org', 'second@example.org'],
        ['copy@example.org'],
      ),
    ).toEqual([{ to: ['first@example.org', 'second@example.org'], cc: ['copy@example.org'], bcc: ['hidden@example.org'] }]);
  });

  it('header addresses that are not envelope recipients are not sent to', () => {
    expect(addressingOf(['ada@example.org'], ['list@example.org', 'ada@example.org'], ['boss@example.org'])).toEqual([
      { to: ['ada@example.org'], cc: [], bcc: [] },
    ]);
  });

  it('matches addresses whatever their case, and takes each envelope recipient once, as the envelope spells it', () => {
    expect(
      addressingOf(['Ada@Example.org', 'ada@example.org', 'bo@example.org'], ['ADA@example.org'], ['BO@example.org', 'ada@example.org']),
    ).toEqual([{ to: ['Ada@Example.org'], cc: ['bo@example.org'], bcc: [] }]);
  });

  it('with no envelope recipient in To, the first in Cc is the recipient', () => {
    expect(
      addressingOf(['a@example.org', 'b@example.org', 'c@example.org'], ['list@example.org'], ['b@example.org', 'a@example.org']),
    ).toEqual([{ to: ['b@example.org'], cc: ['a@example.org'], bcc: ['c@example.org'] }]);
  });

  it('with none named in To or Cc, a lone recipient is the recipient', () => {
    expect(addressingOf(['only@example.org'], [], [])).toEqual([{ to: ['only@example.org'], cc: [], bcc: [] }]);
  });

  it('with several recipients all blind, each gets a send of its own, so that none sees another’s address', () => {
    expect(addressingOf(['a@example.org', 'b@example.org', 'c@example.org'], ['undisclosed@example.org'], [])).toEqual([
      { to: ['a@example.org'], cc: [], bcc: [] },
      { to: ['b@example.org'], cc: [], bcc: [] },
      { to: ['c@example.org'], cc: [], bcc: [] },
    ]);
  });
});
