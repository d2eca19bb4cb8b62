import type { SmtpSinkConfig } from '../config';
import { FaultInjector } from '../domain/fault';
import { MessageStore } from '../model/message.repository';

/** What the sink keeps in memory, filled by its SMTP server and read by its HTTP API: the messages, and the fault to inject. */
export interface Stores {
  store: MessageStore;
  faults: FaultInjector;
}

/** Nothing to undo: both live in memory only. */
export function openStores(config: SmtpSinkConfig): Stores {
  return { store: new MessageStore(config.SINK_MAX_MESSAGES), faults: new FaultInjector() };
}
