import { Resolver } from 'node:dns/promises';
import { ServiceUnavailableError } from '@postbus/errors';
import { answerKey, type RecordType } from '../domain/dns-records';
import type { DnsResolver } from '../domain/ports/domains';

/**
 * A name without such records answers ENOTFOUND or ENODATA: that is an empty answer, not a failure.
 * Resolvers that cannot be reached or fail (ECONNREFUSED, ETIMEOUT, SERVFAIL…) tell nothing about
 * the records: the verification cannot be made now, a 503 the client may retry.
 */
async function orNone(lookup: () => Promise<string[]>): Promise<string[]> {
  try {
    return await lookup();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
    throw new ServiceUnavailableError(
      `The DNS servers did not answer (${code ?? 'no answer'}); the records could not be checked, try again later.`,
      30,
    );
  }
}

/** TXT, CNAME and MX lookups through the configured resolvers (DNS_SERVERS), or the system's when none are set. */
export class DnsLookup implements DnsResolver {
  private readonly resolver: Resolver;

  constructor(servers: string[], timeoutMs = 3000) {
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
    if (servers.length) this.resolver.setServers(servers);
  }

  /** Each TXT record at a name as one string (its character-strings joined); none when the name has none. */
  txt(name: string): Promise<string[]> {
    return orNone(async () => (await this.resolver.resolveTxt(name)).map((chunks) => chunks.join('')));
  }

  /** The CNAME targets at a name; none when it has none. */
  cname(name: string): Promise<string[]> {
    return orNone(() => this.resolver.resolveCname(name));
  }

  /** The MX records at a name as `<preference> <host>`; none when it has none. */
  mx(name: string): Promise<string[]> {
    return orNone(async () => (await this.resolver.resolveMx(name)).map((r) => `${r.priority} ${r.exchange}`));
  }

  /** What DNS holds for each record's name and type, keyed by answerKey. */
  async answersFor(records: { name: string; type: RecordType }[]): Promise<Map<string, string[]>> {
    const unique = [...new Map(records.map((r) => [answerKey(r), r])).entries()];
    const answers = await Promise.all(
      unique.map(([, { name, type }]) => (type === 'TXT' ? this.txt(name) : type === 'MX' ? this.mx(name) : this.cname(name))),
    );
    return new Map(unique.map(([key], i) => [key, answers[i]!]));
  }
}
