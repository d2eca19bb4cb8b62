import type { SuppressionReason } from '@postbus/contracts';
import type { SuppressionCause } from '../suppression-reasons';

/** One reason of a suppression as stored. */
export interface CauseDoc {
  reason: string;
  at: Date;
  messageId?: string;
}

export interface SuppressionDoc {
  _id: string;
  projectId: string;
  email: string | null;
  userId?: string | null;
  /** Its first reason (a suppression's `at` is when it was stored; the list is ordered by it). */
  reason: string;
  at: Date;
  /** The message whose bounce or complaint caused its first reason. */
  messageId?: string;
  /**
   * Every reason of what `block` put on an address, the first included, in the order they came
   * (see causesOf in model/suppression.repository.ts). One stored before reasons accumulated has
   * none: its first reason is its only one.
   */
  reasons?: CauseDoc[];
  /** Its entry in the project's list. */
  entry?: string;
}

/** What blocks an address (see `blocking`): the suppression the client lifts, and every reason the address is blocked for. */
export interface Blocked {
  suppression: SuppressionDoc;
  causes: SuppressionCause[];
}

/** An address to suppress for every email, and why. */
export interface BlockRequest {
  projectId: string;
  email: string;
  reason: SuppressionReason;
  at: Date;
  /** The message whose bounce or complaint caused it. */
  messageId?: string;
}

/** Who a message goes to: its address, and the client's user id when the trigger named one. */
export interface Recipient {
  projectId: string;
  email: string;
  userId?: string | null;
  /** When its message was accepted: one accepted before an erasure of the address or user id ran is for the erased person. */
  acceptedAt?: Date;
}

/** Why recipients get no mail: the send path's check (model/suppression.repository.ts). */
export interface SuppressionLookup {
  /** Why this recipient gets no mail, or undefined; asked together with concurrent callers. */
  reasonFor(recipient: Recipient): Promise<string | undefined>;
  /** Why each recipient gets no mail (undefined when it gets mail), in order. */
  reasons(recipients: Recipient[]): Promise<Array<string | undefined>>;
}

/** The suppressions a project's suppression list shows, as they are added and lifted (model/suppression.repository.ts). */
export interface SuppressionRecords {
  /** Suppresses addresses for every email; returns the suppression each address has, new or not. */
  blockAll(requests: BlockRequest[]): Promise<SuppressionDoc[]>;
  /** Suppresses an unsubscribed address; returns its suppression, new or not. */
  unsubscribed(projectId: string, email: string, at: Date): Promise<SuppressionDoc>;
  /** What blocks an address, with every reason it is blocked for; null when nothing does. */
  blocking(projectId: string, email: string): Promise<Blocked | null>;
  /** Lifts what blocks an address (never a complaint); `kept`: a complaint that came meanwhile, put back. */
  unblock(projectId: string, email: string, known?: Blocked | null): Promise<{ lifted: boolean; kept: SuppressionDoc | null }>;
  /** Makes sure an address's complaint blocks it; returns the block so changed, or null. */
  keptComplaint(projectId: string, email: string): Promise<SuppressionDoc | null>;
  /** An address's unsubscribe, or null. */
  unsubscription(projectId: string, email: string): Promise<SuppressionDoc | null>;
  /** Lifts an address's unsubscribe. */
  resubscribed(projectId: string, email: string): Promise<void>;
}

/** How many messages to an address soft-bounced in a row (model/suppression.repository.ts). */
export interface SoftBounceCounts {
  /** Counts one more soft-bounced message to an address; returns the count. */
  countSoftBounce(projectId: string, email: string, at: Date): Promise<number>;
  /** Forgets an address's soft bounces: a message reached it since. */
  clearSoftBounces(projectId: string, email: string): Promise<void>;
}
