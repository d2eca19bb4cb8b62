import { countsAsUp, worstOf } from './components';
import type { DailyRecord, ObservedStatus } from './model';

export const HISTORY_DAYS = 90;
const DAY_MS = 86_400_000;

export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * Adds the time from `from` to `to` a component spent in `status` to its daily records, split at
 * UTC midnights. Unknown time is not observed: it neither helps nor hurts the uptime, but still
 * colours the bar (an unobserved day is not a good day).
 */
export function accumulate(
  records: Map<string, DailyRecord>,
  componentId: string,
  status: ObservedStatus,
  from: Date,
  to: Date,
): DailyRecord[] {
  const touched: DailyRecord[] = [];
  let start = from.getTime();
  const end = to.getTime();
  while (start < end) {
    const day = dayOf(new Date(start));
    const nextMidnight = (Math.floor(start / DAY_MS) + 1) * DAY_MS;
    const sliceEnd = Math.min(end, nextMidnight);
    const record = recordFor(records, componentId, day);
    const ms = sliceEnd - start;
    record.worst = worstOf(record.worst, status);
    if (status !== 'unknown') {
      record.observedMs += ms;
      if (countsAsUp(status)) record.operationalMs += ms;
    }
    touched.push(record);
    start = sliceEnd;
  }
  return touched;
}

export const dailyKey = (componentId: string, day: string): string => `${day}|${componentId}`;

/** The record of a component's day, made (operational, nothing observed) when missing. */
export function recordFor(records: Map<string, DailyRecord>, componentId: string, day: string): DailyRecord {
  const key = dailyKey(componentId, day);
  let record = records.get(key);
  if (!record) {
    record = { day, componentId, worst: 'operational', observedMs: 0, operationalMs: 0, incidentIds: [] };
    records.set(key, record);
  }
  return record;
}

/** Uptime in percent over the records (observed time only); null when nothing was observed. */
export function uptimePercent(records: Iterable<DailyRecord>): number | null {
  let observed = 0;
  let up = 0;
  for (const record of records) {
    observed += record.observedMs;
    up += record.operationalMs;
  }
  return observed === 0 ? null : (up / observed) * 100;
}

/** Drops records older than the history keeps. */
export function pruneDays(records: Map<string, DailyRecord>, now: Date): void {
  const oldest = dayOf(new Date(now.getTime() - (HISTORY_DAYS - 1) * DAY_MS));
  for (const [key, record] of records) if (record.day < oldest) records.delete(key);
}
