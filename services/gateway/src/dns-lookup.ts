import { Resolver } from 'node:dns/promises';

/** TXT lookups through the configured resolvers (DNS_SERVERS), or the system's when none are set. */
export class DnsLookup {
  private readonly resolver: Resolver;

  constructor(servers: string[], timeoutMs = 3000) {
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
    if (servers.length) this.resolver.setServers(servers);
  }

  /** Each TXT record at a name as one string (its character-strings joined); none when the name has none. */
  async txt(name: string): Promise<string[]> {
    try {
      return (await this.resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
      throw error;
    }
  }

  /** The TXT answers of several names at once. */
  async txtOf(names: string[]): Promise<Map<string, string[]>> {
    const unique = [...new Set(names)];
    const answers = await Promise.all(unique.map((name) => this.txt(name)));
    return new Map(unique.map((name, i) => [name, answers[i]!]));
  }
}
