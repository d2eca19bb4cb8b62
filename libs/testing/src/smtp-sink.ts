import type { MailpitList, MailpitMessage, MailpitSummary } from '@postbus/smtp';
import { freePort, startService, type ServiceProcess } from './processes';
import { waitFor } from './wait';

/** The JSON shapes of the sink's Mailpit-compatible API (services/smtp-sink), as tests read them. */
export type SinkMessageSummary = MailpitSummary;
export type SinkMessageList = MailpitList;
export type SinkMessage = MailpitMessage;

export interface SinkFault {
  /** The SMTP reply code, 400–599. */
  code: number;
  message?: string;
  /** How many messages get it; unlimited when absent. */
  count?: number;
  /** How long it lasts; until cleared when absent. */
  forMs?: number;
  /** Refuse at RCPT TO (the default) or after DATA. */
  stage?: 'rcpt' | 'data';
}

/** A client of the sink's HTTP API; every method throws on an unexpected status, naming it. */
export class SinkClient {
  constructor(readonly baseUrl: string) {}

  private async request(method: string, path: string, json?: unknown): Promise<Response> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      ...(json !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }),
    });
    if (!res.ok) throw new Error(`smtp-sink ${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res;
  }

  private async json<T>(method: string, path: string, json?: unknown): Promise<T> {
    return (await (await this.request(method, path, json)).json()) as T;
  }

  /** The newest messages first. */
  list(limit = 50, start = 0): Promise<SinkMessageList> {
    return this.json('GET', `/api/v1/messages?limit=${limit}&start=${start}`);
  }

  /** Mailpit's search syntax, e.g. `message-id:<id>`, `to:ada@example.com`, `subject:"Welcome Ada"`. */
  search(query: string, limit = 50): Promise<SinkMessageList> {
    return this.json('GET', `/api/v1/search?query=${encodeURIComponent(query)}&limit=${limit}`);
  }

  /** The full message (text, HTML, attachments); `latest` is the newest. */
  get(id: string): Promise<SinkMessage> {
    return this.json('GET', `/api/v1/message/${encodeURIComponent(id)}`);
  }

  /** The message exactly as received. */
  async raw(id: string): Promise<string> {
    return (await this.request('GET', `/api/v1/message/${encodeURIComponent(id)}/raw`)).text();
  }

  /** Header name (canonical: "Message-Id") → every value of it. */
  headers(id: string): Promise<Record<string, string[]>> {
    return this.json('GET', `/api/v1/message/${encodeURIComponent(id)}/headers`);
  }

  /** How many messages the sink holds. */
  async count(): Promise<number> {
    return (await this.list(1)).total;
  }

  /** Deletes every message. */
  async clear(): Promise<void> {
    await this.request('DELETE', '/api/v1/messages');
  }

  async setFault({ code, message, count, forMs, stage }: SinkFault): Promise<void> {
    await this.request('PUT', '/api/sink/fault', { code, message, count, for_ms: forMs, stage });
  }

  async clearFault(): Promise<void> {
    await this.request('DELETE', '/api/sink/fault');
  }

  /** Waits for the message whose Message-ID header is this one (angle brackets or not) and returns its summary. */
  waitForMessageId(messageId: string, timeoutMs = 10_000): Promise<SinkMessageSummary> {
    const bare = messageId.trim().replace(/^<+|>+$/g, '');
    return waitFor(
      async () => {
        const { messages } = await this.search(`message-id:${bare}`, 10);
        return messages.find((message) => message.MessageID === bare);
      },
      { timeoutMs, intervalMs: 50, what: `message ${bare} in the smtp sink` },
    );
  }
}

export interface SmtpSink {
  /** For an SMTP client: `smtp://127.0.0.1:<port>` (no TLS, no authentication). */
  smtpUrl: string;
  smtpPort: number;
  httpUrl: string;
  client: SinkClient;
  process: ServiceProcess;
}

/** Starts services/smtp-sink/dist/main.js on free ports (build it first) and waits until it is ready. */
export async function startSmtpSink(env: Record<string, string> = {}): Promise<SmtpSink> {
  const httpPort = await freePort();
  let smtpPort = await freePort();
  while (smtpPort === httpPort) smtpPort = await freePort();
  const service = await startService('smtp-sink', httpPort, { SMTP_PORT: String(smtpPort), ...env });
  return { smtpUrl: `smtp://127.0.0.1:${smtpPort}`, smtpPort, httpUrl: service.url, client: new SinkClient(service.url), process: service };
}
