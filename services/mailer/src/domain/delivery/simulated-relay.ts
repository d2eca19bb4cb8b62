import type { DeliveryOutcome } from '../ports/delivery';
import type { EventDoc, MessageDoc } from '../message-records';

/** What a test message's recipient asks for by the end of its local part: `b+bounce@…`, `c+complaint@…`, `d+defer@…`. */
export type SimulatedBehaviour = 'bounce' | 'complaint' | 'defer' | 'deliver';

const BEHAVIOUR_TAG = /\+(bounce|complaint|defer)$/i;

export function simulatedBehaviour(address: string): SimulatedBehaviour {
  const local = address.slice(0, Math.max(0, address.lastIndexOf('@')));
  const tag = BEHAVIOUR_TAG.exec(local)?.[1]?.toLowerCase();
  return tag === 'bounce' || tag === 'complaint' || tag === 'defer' ? tag : 'deliver';
}

/**
 * The relay's answer to a test message (composed and signed like any other, then handed here
 * instead of to SMTP): `+bounce` is refused for good, `+defer` turned away on its first attempt
 * and taken on the next, anything else taken. Nothing leaves the process.
 */
export function simulatedDelivery(address: string, attempt: number): DeliveryOutcome {
  const behaviour = simulatedBehaviour(address);
  if (behaviour === 'bounce')
    return { status: 'bounced', code: 550, response: '550 5.1.1 Simulated bounce (test mode): nothing was delivered' };
  if (behaviour === 'defer' && attempt <= 1)
    return { status: 'deferred', code: 451, response: '451 4.3.0 Simulated deferral (test mode): retried once' };
  return { status: 'sent', code: 250, response: '250 2.0.0 Simulated (test mode): nothing was delivered' };
}

/** Where a simulated complaint is recorded: the Timeline (named by shape, since the Timeline's module reads the deliverer's outcomes, and the deliverer this module). */
interface EngagementRecorder {
  recordEngagement(message: MessageDoc, event: 'complained', at: Date, details: { reason: string }): Promise<unknown>;
}

/** The reason on a simulated complaint's timeline entry. */
export const SIMULATED_COMPLAINT = 'simulated complaint (test mode)';

/**
 * What follows a test message's simulated `sent`: for `+complaint`, the complaint a mailbox
 * provider's report would add (a `complained` entry and `message.complained`). Unlike a real
 * complaint it suppresses nothing: the address is the client's test fixture, and a suppression
 * would refuse the client's real mail to it. `timeline`: the message's entries before `recorded`;
 * a redelivered trigger that finds the complaint there adds nothing.
 */
export async function simulateFeedback(
  message: MessageDoc,
  recorded: Pick<EventDoc, 'event'>,
  before: Array<Pick<EventDoc, 'event'>>,
  timeline: EngagementRecorder,
): Promise<void> {
  if (!message.test || recorded.event !== 'sent' || simulatedBehaviour(message.email) !== 'complaint') return;
  if (before.some((e) => e.event === 'complained')) return;
  await timeline.recordEngagement(message, 'complained', new Date(), { reason: SIMULATED_COMPLAINT });
}
