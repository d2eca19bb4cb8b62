import type { RecordedMessage, TopicRecorder } from './kafka';
import { waitFor } from './wait';

/**
 * Runs of one erasure in a participant service, as the erasure service drives them: each call has
 * `publish` put out the erasure.execute command (with `subject`, or what the call gives: the erasure
 * service sends it again until every service has confirmed) and resolves with the next
 * erasure.confirmed of that erasure `events` records.
 */
export function erasureRuns<S extends { erasureId: string }>(
  events: TopicRecorder,
  subject: S,
  publish: (subject: S) => Promise<unknown>,
): (again?: S) => Promise<RecordedMessage> {
  let runs = 0;
  const confirmations = () =>
    events.ofType('erasure.confirmed').filter((m) => (m.value as { erasureId: string }).erasureId === subject.erasureId);
  return async (again = subject) => {
    const run = runs++;
    await publish(again);
    return waitFor(() => confirmations()[run], { what: run === 0 ? 'erasure.confirmed' : `erasure.confirmed of run ${run + 1}` });
  };
}
