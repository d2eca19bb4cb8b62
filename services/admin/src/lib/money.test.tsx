import { currencyDigits, formatMoney, toMajorUnits } from './money';

// Intl separates a code or symbol from the figure with a no-break space: compare with plain spaces.
const plain = (text: string) => text.replace(/\s/gu, ' ');

describe('amounts in minor units', () => {
  it("are formatted with the currency's own minor-unit digits", () => {
    expect(formatMoney(1999, 'EUR', 'en-US')).toBe('€19.99');
    expect(formatMoney(500, 'JPY', 'en-US')).toBe('¥500');
    expect(plain(formatMoney(1234, 'KWD', 'en-US'))).toBe('KWD 1.234');
    expect(formatMoney(100000, 'USD', 'en-US')).toBe('$1,000.00');
    expect(plain(formatMoney(5, 'USD', 'de-DE'))).toBe('0,05 $');
  });

  it('give the major unit for charts, per currency', () => {
    expect(currencyDigits('EUR')).toBe(2);
    expect(currencyDigits('JPY')).toBe(0);
    expect(currencyDigits('BHD')).toBe(3);
    expect(toMajorUnits(1999, 'EUR')).toBeCloseTo(19.99);
    expect(toMajorUnits(1999, 'JPY')).toBe(1999);
  });

  it('in a code Intl cannot format are shown as stored, never with a wrong symbol', () => {
    expect(formatMoney(1999, 'not-a-code', 'en-US')).toBe('1999 not-a-code (minor units)');
  });
});
