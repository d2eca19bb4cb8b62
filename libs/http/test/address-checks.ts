import type { lookup as dnsLookup } from 'node:dns';
import { AddressPolicy, UnsafeAddressError } from '../src/outbound/address-policy';

type Lookup = (hostname: string, options: object, callback: (...args: unknown[]) => void) => void;

/** Resolves names from a table instead of DNS (always as with `all: true`, as the policy asks). */
export function fakeDns(table: Record<string, Array<{ address: string; family: number }>>): jest.Mock & typeof dnsLookup {
  const fake: Lookup = (hostname, _options, callback) => {
    const addresses = table[hostname];
    if (!addresses) callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    else callback(null, addresses);
  };
  return jest.fn(fake) as unknown as jest.Mock & typeof dnsLookup;
}

/** Why the policy refuses the URL (the UnsafeAddressError's message), or undefined when it allows it. */
export const refusal = async (policy: AddressPolicy, url: string): Promise<string | undefined> => {
  try {
    await policy.check(new URL(url));
    return undefined;
  } catch (error) {
    if (!(error instanceof UnsafeAddressError)) throw error;
    return error.message;
  }
};
