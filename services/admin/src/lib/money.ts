/**
 * Amounts travel as integer minor units with an ISO 4217 currency (1999 EUR is €19.99, 500 JPY is
 * ¥500, 1234 KWD is 1.234 KWD): the currency's own number of decimals comes from Intl, which knows ISO 4217.
 */

/** The currency's minor-unit digits (2 for EUR, 0 for JPY, 3 for KWD); 2 for a code Intl does not know. */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** Minor units as the currency's major unit (1999 EUR → 19.99), for charts. */
export const toMajorUnits = (minor: number, currency: string): number => minor / 10 ** currencyDigits(currency);

/** Minor units formatted for a reader, e.g. formatMoney(1999, 'EUR', 'en-US') → "€19.99". */
export function formatMoney(minor: number, currency: string, locale?: string): string {
  const digits = currencyDigits(currency);
  try {
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(minor / 10 ** digits);
  } catch {
    // Not a currency Intl can format: the figure as stored, never a wrong symbol.
    return `${minor} ${currency} (minor units)`;
  }
}
