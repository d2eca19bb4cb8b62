import { isReservedHeader, RESERVED_HEADERS, reservedHeaderNames } from './values';

describe('reserved headers', () => {
  it.each([
    // RFC 5322 originator, destination and identification fields
    'From',
    'Sender',
    'Reply-To',
    'To',
    'Cc',
    'Bcc',
    'Subject',
    'Date',
    'Message-ID',
    // resent fields, by prefix
    'Resent-From',
    'Resent-Sender',
    'Resent-Date',
    'Resent-Message-ID',
    // trace fields and bounce redirects
    'Return-Path',
    'Received',
    'Received-SPF',
    'Errors-To',
    // MIME
    'MIME-Version',
    'Content-Type',
    'Content-Transfer-Encoding',
    // authentication, what DKIM, DMARC and ARC rely on
    'DKIM-Signature',
    'DomainKey-Signature',
    'Authentication-Results',
    'ARC-Seal',
    'ARC-Message-Signature',
    'ARC-Authentication-Results',
    'ARC-Anything-Later',
    // the unsubscribe and the feedback loop
    'List-Unsubscribe',
    'List-Unsubscribe-Post',
    'Feedback-ID',
    // read receipts
    'Disposition-Notification-To',
    'Disposition-Notification-Options',
    'Return-Receipt-To',
    // Postbus's own
    'X-Postbus-Message-Id',
  ])('%s is reserved, in any case', (name) => {
    expect(isReservedHeader(name)).toBe(true);
    expect(isReservedHeader(name.toLowerCase())).toBe(true);
    expect(isReservedHeader(name.toUpperCase())).toBe(true);
  });

  it.each([
    'X-Order-Id',
    'In-Reply-To',
    'References',
    'Comments',
    'Keywords',
    'List-Id',
    'List-Help',
    'Reply-To-Note',
    'Received2',
    'Senders',
    'Resent',
    'ARC',
    'Archive-Id',
  ])('%s is a send’s to set: a name a reserved one only resembles, or one Postbus leaves to the client', (name) => {
    expect(isReservedHeader(name)).toBe(false);
  });

  it('names the reserved ones among a send’s headers, as given and in order', () => {
    expect(reservedHeaderNames(['X-Order-Id', 'sender', 'Resent-From', 'In-Reply-To', 'arc-seal'])).toEqual([
      'sender',
      'Resent-From',
      'arc-seal',
    ]);
    expect(reservedHeaderNames([])).toEqual([]);
  });

  it('states each prefix rule with a trailing *, and no name twice', () => {
    const lower = RESERVED_HEADERS.map((name) => name.toLowerCase());
    expect(new Set(lower).size).toBe(lower.length);
    expect(RESERVED_HEADERS.filter((name) => name.includes('*')).every((name) => name.indexOf('*') === name.length - 1)).toBe(true);
    expect(RESERVED_HEADERS).toEqual(expect.arrayContaining(['Resent-*', 'ARC-*', 'Content-*']));
  });
});
