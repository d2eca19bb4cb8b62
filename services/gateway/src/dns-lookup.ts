import { Resolver } from 'node:dns/promises';

/** A name without such records answers ENOTFOUND or ENODATA: that is an empty answer, not a failure. */
async function orNone(lookup: () => Promise<string[]>): Promise<string[]> {
  try {
    return await lookup();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
    throw error;
  }
}

/** TXT and CNAME lookups through the configured resolvers (DNS_SERVERS), or the system's when none are set. */
export class DnsLookup {
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

  /** What DNS holds for each record's name and type (keyed by name; records of one name share a type). */
  async answersFor(records: { name: string; type: 'TXT' | 'CNAME' }[]): Promise<Map<string, string[]>> {
    const unique = [...new Map(records.map((r) => [r.name, r.type])).entries()];
    const answers = await Promise.all(unique.map(([name, type]) => (type === 'TXT' ? this.txt(name) : this.cname(name))));
    return new Map(unique.map(([name], i) => [name, answers[i]!]));
  }
}
