import { invalidUtf8Offset, loneSurrogates } from './validation';

describe('invalidUtf8Offset', () => {
  const bytes = (...parts: Array<string | number[]>) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

  it('is -1 for UTF-8, whatever it holds (accents, emoji, a real U+FFFD)', () => {
    expect(invalidUtf8Offset(bytes('{"a":"Café 🎉 \ufffd"}'))).toBe(-1);
    expect(invalidUtf8Offset(Buffer.alloc(0))).toBe(-1);
  });

  it('names the first byte that begins no UTF-8 character', () => {
    expect(invalidUtf8Offset(bytes('{"a":"', [0xc3, 0x28], '"}'))).toBe(6);
    // after a real U+FFFD, which is no error
    expect(invalidUtf8Offset(bytes('\ufffdé', [0xff]))).toBe(5);
    // overlong, an encoded surrogate, a truncated sequence at the end
    expect(invalidUtf8Offset(bytes('x', [0xc0, 0x80]))).toBe(1);
    expect(invalidUtf8Offset(bytes('xy', [0xed, 0xa0, 0x80]))).toBe(2);
    expect(invalidUtf8Offset(bytes('🎉', [0xf0, 0x9f]))).toBe(4);
  });
});

describe('loneSurrogates', () => {
  it('names every string, value or key, holding a lone surrogate by its JSON pointer, in document order', () => {
    expect(
      loneSurrogates({ ok: 'a\ud83c\udf89', bad: 'x\udc00', nested: { list: ['fine', '\ud800'], 'a/b~\udfff': { inside: '\ud800' } } }),
    ).toEqual([
      { pointer: '/bad', message: expect.stringContaining('lone surrogate') },
      { pointer: '/nested/list/1', message: expect.stringContaining('lone surrogate') },
      { pointer: '/nested/a~1b~0\udfff', message: expect.stringMatching(/^is a key that/) },
    ]);
    expect(loneSurrogates({ a: 1, b: null, c: [true, 'é'] })).toEqual([]);
  });

  it('walks a body nested deeper than the call stack goes', () => {
    let deep: unknown = '\udc00';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(loneSurrogates(deep)).toHaveLength(1);
  });
});
