import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { defaultKafkaBrokers } from './infra';
import { uniqueName } from './wait';

export interface RecordedMessage {
  topic: string;
  key: string;
  headers: Record<string, string>;
  value: unknown;
}

/** Reads every message of some topics from the beginning into an array, for assertions. */
export class TopicRecorder {
  readonly messages: RecordedMessage[] = [];
  private consumer: Consumer | undefined;

  constructor(
    private readonly brokers: string[],
    private readonly topics: string[],
  ) {}

  async start(): Promise<this> {
    const kafka = new Kafka({ brokers: this.brokers, clientId: 'test-recorder', logLevel: logLevel.NOTHING });
    this.consumer = kafka.consumer({ groupId: uniqueName('test-recorder') });
    await this.consumer.connect();
    const joined = new Promise<void>((resolve) => {
      const remove = this.consumer!.on(this.consumer!.events.GROUP_JOIN, () => {
        remove();
        resolve();
      });
    });
    await this.consumer.subscribe({ topics: this.topics, fromBeginning: true });
    await this.consumer.run({
      eachMessage: ({ topic, message }) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(message.headers ?? {})) if (v !== undefined) headers[k] = String(Array.isArray(v) ? v[0] : v);
        let value: unknown = message.value?.toString();
        try {
          value = JSON.parse(String(value));
        } catch {
          // not JSON: kept as text
        }
        this.messages.push({ topic, key: message.key?.toString() ?? '', headers, value });
        return Promise.resolve();
      },
    });
    await joined;
    return this;
  }

  ofType(type: string): RecordedMessage[] {
    return this.messages.filter((m) => m.headers['ce_type'] === type);
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

/** Starts a recorder, on the local brokers, of the topics (by their names without namespace) in a test file's namespace. */
export const recordTopics = (namespace: string, topics: string[]): Promise<TopicRecorder> =>
  new TopicRecorder(
    defaultKafkaBrokers().split(','),
    topics.map((topic) => `${topic}.${namespace}`),
  ).start();
