import { BusUnavailableError, type Publisher } from '@postbus/bus';
import type { MessageData, MessageType, TopicOf } from '@postbus/contracts';
import { ServiceUnavailableError } from '@postbus/errors';
import type { BulkCommandPublisher } from '../domain/ports/commands';

/** Puts accepted commands on the bus; a write the broker did not acknowledge becomes a 503. */
export class CommandSender implements BulkCommandPublisher {
  constructor(private readonly publisher: Publisher) {}

  async send<T extends MessageType>(
    topic: NoInfer<TopicOf<T>>,
    type: T,
    key: string,
    data: MessageData<T>,
    requestId: string,
  ): Promise<string> {
    const [id] = await this.sendAll(topic, type, [{ key, data }], requestId);
    return id!;
  }

  /** Several commands of one type, published in one tick: the publisher puts them in one produce request. */
  async sendAll<T extends MessageType>(
    topic: NoInfer<TopicOf<T>>,
    type: T,
    commands: Array<{ key: string; data: MessageData<T> }>,
    requestId: string,
  ): Promise<string[]> {
    try {
      return await Promise.all(commands.map(({ key, data }) => this.publisher.publish(topic, type, key, data, { requestId })));
    } catch (error) {
      if (error instanceof BusUnavailableError) {
        throw new ServiceUnavailableError('The request could not be stored durably; nothing was accepted. Retry later.', 5);
      }
      throw error;
    }
  }
}
