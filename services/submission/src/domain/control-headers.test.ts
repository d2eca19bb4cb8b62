import { ControlHeaderError, readControlHeaders, rfc3339Of } from './control-headers';

const headers = (fields: Record<string, string | string[]>) =>
  Object.entries(fields).flatMap(([name, value]) => [value].flat().map((v) => ({ name, value: v })));

describe('the control headers', () => {
  it('set tags, metadata, a send time, an idempotency key and tracking, in any case of their names', () => {
    expect(
      readControlHeaders(
        headers({
          'X-Postbus-Tags': 'receipt, shop:eu ,,receipt',
          'x-postbus-metadata': '{"order_id":"4711","region":"eu"}',
          'X-POSTBUS-SEND-AT': '2030-01-01T10:00:00+01:00',
          'X-Postbus-Idempotency-Key': 'order-4711-receipt',
          'X-Postbus-Track': 'opens, clicks',
          'X-Mailer': 'not a control header',
        }),
      ),
    ).toEqual({
      tags: ['receipt', 'shop:eu'],
      metadata: { order_id: '4711', region: 'eu' },
      send_at: '2030-01-01T09:00:00.000Z',
      idempotencyKey: 'order-4711-receipt',
      track_opens: true,
      track_clicks: true,
    });
  });

  it('without them the send has no options of its own (the project’s tracking applies)', () => {
    expect(readControlHeaders(headers({ Subject: 'hi' }))).toEqual({});
  });

  it('add up repeated X-Postbus-Tags headers', () => {
    expect(readControlHeaders(headers({ 'X-Postbus-Tags': ['a', 'b,c'] })).tags).toEqual(['a', 'b', 'c']);
  });

  it.each([
    ['opens', { track_opens: true, track_clicks: false }],
    ['clicks', { track_opens: false, track_clicks: true }],
    ['none', { track_opens: false, track_clicks: false }],
    ['Clicks,Opens', { track_opens: true, track_clicks: true }],
  ])('X-Postbus-Track: %s', (value, expected) => {
    expect(readControlHeaders(headers({ 'X-Postbus-Track': value }))).toEqual(expected);
  });

  it.each([
    ['X-Postbus-Metadata', 'order=4711', 'X-Postbus-Metadata: not JSON'],
    ['X-Postbus-Metadata', '["a"]', 'X-Postbus-Metadata: not a JSON object'],
    ['X-Postbus-Metadata', '{"n":1}', 'the value of "n" is not a string'],
    ['X-Postbus-Send-At', 'tomorrow', 'X-Postbus-Send-At: not an ISO 8601 date and time with a time zone'],
    ['X-Postbus-Send-At', '2030-01-01T09:00:00', 'with a time zone'],
    ['X-Postbus-Track', 'everything', 'X-Postbus-Track: is `opens`, `clicks`, `opens,clicks` or `none`'],
    ['X-Postbus-Track', 'none,opens', 'X-Postbus-Track'],
    ['X-Postbus-Idempotency-Key', 'clé', 'not 1 to 255 printable ASCII characters'],
  ])('refuses %s: %s, naming the header and the problem', (name, value, problem) => {
    expect(() => readControlHeaders(headers({ [name]: value }))).toThrow(ControlHeaderError);
    expect(() => readControlHeaders(headers({ [name]: value }))).toThrow(problem);
  });

  it('refuses a control header of one value given twice', () => {
    expect(() => readControlHeaders(headers({ 'X-Postbus-Send-At': ['2030-01-01T09:00:00Z', '2030-01-02T09:00:00Z'] }))).toThrow(
      'X-Postbus-Send-At: given more than once',
    );
  });

  it('reads ISO 8601 times with any offset form as RFC 3339 in UTC', () => {
    expect(rfc3339Of('2030-01-01T09:00Z')).toBe('2030-01-01T09:00:00.000Z');
    expect(rfc3339Of('2030-01-01 09:00:00.5-0230')).toBe('2030-01-01T11:30:00.500Z');
    expect(rfc3339Of('2030-01-01T09:00:00+02')).toBe('2030-01-01T07:00:00.000Z');
    expect(rfc3339Of('2030-13-01T09:00:00Z')).toBeUndefined();
  });
});
