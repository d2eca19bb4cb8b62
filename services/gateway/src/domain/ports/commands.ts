import type { MessageData, MessageType, TopicOf } from '@postbus/contracts';

/** Where accepted commands go: the bus; a command it did not take fails the request. */
export interface CommandPublisher {
  /** The command's message id. */
  send<T extends MessageType>(topic: NoInfer<TopicOf<T>>, type: T, key: string, data: MessageData<T>, requestId: string): Promise<string>;
}

/** The bus for a batch: its accepted commands go together. */
export interface BulkCommandPublisher extends CommandPublisher {
  /** Several commands of one type together (one produce request); the commands' message ids, in order. */
  sendAll<T extends MessageType>(
    topic: NoInfer<TopicOf<T>>,
    type: T,
    commands: Array<{ key: string; data: MessageData<T> }>,
    requestId: string,
  ): Promise<string[]>;
}
