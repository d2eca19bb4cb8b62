import { canonicalHeaderName, decodeEncodedWords, headerMap, keyHeadersOf, parseAddressList, withoutAngleBrackets } from './headers';

const message = (head: string, body = 'body\r\nFrom: not-a-header@example.com\r\n') => Buffer.from(`${head}\r\n\r\n${body}`);

describe('headers', () => {
  it('when the top block has folded and repeated headers, then the key headers are its first values, unfolded', () => {
    const raw = message(
      [
        'Received: from a',
        'Received: from b',
        'Subject: a long',
        '\tsubject',
        'FROM: Ada <ada@example.com>',
        'To: bob@example.org,',
        ' carol@example.net',
        'Message-ID: <id-1@example.com>',
        'Message-ID: <id-2@example.com>',
      ].join('\r\n'),
    );
    expect(keyHeadersOf(raw)).toMatchObject({
      subject: 'a long subject',
      from: 'Ada <ada@example.com>',
      to: 'bob@example.org, carol@example.net',
      messageId: '<id-1@example.com>',
      cc: '',
    });
  });

  it('when the body contains header-like lines, then they are not read as headers', () => {
    expect(keyHeadersOf(message('Subject: x')).from).toBe('');
    expect(keyHeadersOf(Buffer.from('Subject: bare LF\n\nFrom: body@example.com\n')).from).toBe('');
  });

  it('when there is no blank line, then the whole message is the header block', () => {
    expect(keyHeadersOf(Buffer.from('Subject: only headers\r\n')).subject).toBe('only headers');
  });

  it('when headers are mapped, then names are canonical as in Go and sorted, with every value', () => {
    const map = headerMap(message('x-b: 2\r\nMESSAGE-ID: <m>\r\nX-B: 3\r\nDKIM-Signature: v=1;\r\n b=abc'));
    expect(map).toEqual({ 'Dkim-Signature': ['v=1; b=abc'], 'Message-Id': ['<m>'], 'X-B': ['2', '3'] });
    expect(Object.keys(map)).toEqual(['Dkim-Signature', 'Message-Id', 'X-B']);
    expect(canonicalHeaderName('odd name')).toBe('odd name');
  });

  it('when words are encoded, then adjacent ones are joined and decoded in their charset', () => {
    expect(decodeEncodedWords('=?UTF-8?Q?Gr=C3=BC=C3=9Fe_?= =?UTF-8?B?8J+Riw==?= plain')).toBe('Grüße 👋 plain');
    // One multi-byte character split across two words.
    expect(decodeEncodedWords('=?UTF-8?B?w6k=?==?UTF-8?Q?=C3?= =?UTF-8?Q?=A9?=')).toBe('éé');
    expect(decodeEncodedWords('=?ISO-8859-1?Q?caf=E9?=')).toBe('café');
    expect(decodeEncodedWords('=?x-unknown?Q?caf=E9?=')).toBe('café');
    expect(decodeEncodedWords('no words')).toBe('no words');
  });

  it('when an address list has groups and encoded names, then it is flattened with names decoded', () => {
    expect(parseAddressList('=?UTF-8?Q?J=C3=B6rg?= <jorg@example.com>, team: a@example.com, "B, C" <b@example.com>;')).toEqual([
      { Name: 'Jörg', Address: 'jorg@example.com' },
      { Name: '', Address: 'a@example.com' },
      { Name: 'B, C', Address: 'b@example.com' },
    ]);
    expect(parseAddressList('')).toEqual([]);
    expect(withoutAngleBrackets(' <id@example.com> ')).toBe('id@example.com');
  });
});
