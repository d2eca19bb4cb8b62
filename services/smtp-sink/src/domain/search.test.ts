import { keyHeadersOf } from './headers';
import { MailpitViews } from './mailpit-views';
import type { StoredMessage } from './ports';
import { compileSearch, splitQuery } from './search';

describe('compileSearch', () => {
  const newestFirst: StoredMessage[] = [];
  // A search reads the header views only: the views never page the mailbox here.
  const views = new MailpitViews({ size: 0, unreadCount: 0, page: () => ({ messages: [], matched: 0, matchedUnread: 0 }) });
  const add = (head: string) => {
    const raw = Buffer.from(`${head}\r\n\r\nbody text`);
    const message: StoredMessage = {
      id: `message-${newestFirst.length + 1}`,
      raw,
      mailFrom: 'bounce@example.com',
      rcptTo: ['hidden@example.net'],
      receivedAt: Date.now(),
      headers: keyHeadersOf(raw),
      read: false,
    };
    newestFirst.unshift(message);
    return message;
  };
  const welcome = add(
    'From: Ada <ada@example.com>\r\nTo: bob@example.org\r\nSubject: =?UTF-8?Q?Welcome_J=C3=B6rg?=\r\nMessage-ID: <Welcome-1@example.com>',
  );
  const invoice = add('From: billing@example.com\r\nTo: carol@example.net\r\nSubject: Your invoice\r\nMessage-ID: <inv-2@example.com>');
  const search = (query: string) => newestFirst.filter(compileSearch(query, (m) => views.headersOf(m))).map((m) => m.id);

  it('when a query names a message id, then it matches with or without brackets, in any case', () => {
    expect(search('message-id:<welcome-1@example.com>')).toEqual([welcome.id]);
    expect(search('message-id:inv-2@example.com')).toEqual([invoice.id]);
    expect(search('message-id:none@example.com')).toEqual([]);
  });

  it('when a query has words, phrases, fields and negations, then every term must match', () => {
    expect(search('jörg')).toEqual([welcome.id]);
    expect(search('"your invoice"')).toEqual([invoice.id]);
    expect(search('from:ada to:bob')).toEqual([welcome.id]);
    expect(search('subject:"welcome jörg"')).toEqual([welcome.id]);
    expect(search('-from:ada')).toEqual([invoice.id]);
    expect(search('!subject:invoice')).toEqual([welcome.id]);
    expect(search('bcc:hidden@example.net')).toEqual([invoice.id, welcome.id]);
    expect(search('addressed:carol')).toEqual([invoice.id]);
    expect(search('is:unread larger:10 smaller:1mb')).toEqual([invoice.id, welcome.id]);
    expect(search('before:2000-01-01')).toEqual([]);
    expect(search('body')).toEqual([]);
  });

  it('when a query is split, then quoted phrases stay together without their quotes', () => {
    expect(splitQuery('a subject:"b c"  "d e"')).toEqual(['a', 'subject:b c', 'd e']);
  });
});
