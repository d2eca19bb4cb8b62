import DNS from 'dns2';
import { freePort } from './processes';

const { Packet } = DNS;

export type RecordType = 'TXT' | 'CNAME' | 'MX' | 'A';

export interface LocalDnsServer {
  /** `host:port`, the form DNS_SERVERS takes. */
  readonly address: string;
  /** Replaces the records of one type at a name (TXT values over 255 bytes are split into character-strings; an MX value is `<preference> <host>`, an A value an IPv4 address). */
  publish(name: string, type: RecordType, values: string[]): void;
  unpublish(name: string, type?: RecordType): void;
  close(): Promise<void>;
  /** Lets the process end while the server still listens (a server shared beyond one test file). */
  unref(): void;
}

const TYPE_CODES: Record<RecordType, number> = { TXT: Packet.TYPE.TXT, CNAME: Packet.TYPE.CNAME, MX: Packet.TYPE.MX, A: Packet.TYPE.A };
const normalise = (name: string) => name.toLowerCase().replace(/\.$/, '');
const chunks = (value: string): string[] => value.match(/[\s\S]{1,255}/g) ?? [''];

/**
 * A real DNS server (UDP and TCP on one loopback port, dns2) answering from records published in
 * memory: domain verification in development and tests goes through node:dns against it.
 */
export async function startDnsServer(port?: number, host = '127.0.0.1'): Promise<LocalDnsServer> {
  const zone = new Map<string, Map<RecordType, string[]>>();
  const server = DNS.createServer({
    udp: true,
    tcp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      for (const question of request.questions) {
        const type = (question as { type?: number }).type;
        for (const [recordType, values] of zone.get(normalise(question.name)) ?? []) {
          if (type !== TYPE_CODES[recordType]) continue;
          for (const value of values) {
            const [preference, exchange] = value.split(/\s+/);
            const answer =
              recordType === 'TXT'
                ? { name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data: chunks(value) }
                : recordType === 'MX'
                  ? { name: question.name, type: Packet.TYPE.MX, class: Packet.CLASS.IN, ttl: 1, priority: Number(preference), exchange }
                  : recordType === 'A'
                    ? { name: question.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 1, address: value }
                    : { name: question.name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 1, domain: value };
            // dns2 encodes plain answer objects; its typings ask for a full Resource instance.
            response.answers.push(answer as unknown as (typeof response.answers)[number]);
          }
        }
      }
      void send(response);
    },
  });
  const chosen = port ?? (await freePort());
  await server.listen({ udp: { port: chosen, address: host }, tcp: { port: chosen, address: host } });
  return {
    address: `${host}:${chosen}`,
    publish(name, type, values) {
      const records = zone.get(normalise(name)) ?? new Map<RecordType, string[]>();
      records.set(type, [...values]);
      zone.set(normalise(name), records);
    },
    unpublish(name, type) {
      if (type) zone.get(normalise(name))?.delete(type);
      else zone.delete(normalise(name));
    },
    async close() {
      await server.close();
    },
    unref() {
      // dns2 keeps its UDP socket and TCP server in `servers`, which its typings leave out.
      const { servers } = server as unknown as { servers: Record<string, { unref(): void } | undefined> };
      for (const listener of Object.values(servers)) listener?.unref();
    },
  };
}
