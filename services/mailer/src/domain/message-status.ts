import { MESSAGE_STATUSES, TERMINAL_STATUSES, type MessageStatus } from '@postbus/contracts';
import type { EventDoc } from './message-records';

const TERMINAL = new Set<string>(TERMINAL_STATUSES);
const RANK = new Map<string, number>(MESSAGE_STATUSES.map((s, i) => [s, i]));

/** The delivery status a message's events add up to: the latest delivery event, or its first status (queued, or scheduled). */
export function statusOf(events: EventDoc[], first: MessageStatus = 'queued'): MessageStatus {
  let status: MessageStatus = first;
  let sequence = 0;
  for (const e of events) if (RANK.has(e.event) && e.sequence >= sequence) [status, sequence] = [e.event as MessageStatus, e.sequence];
  return status;
}

export const isFinished = (events: EventDoc[]): boolean => TERMINAL.has(statusOf(events));

/** Whether a delivery event ends the message's delivery (no attempt follows it). */
export const isTerminal = (event: string): boolean => TERMINAL.has(event);
