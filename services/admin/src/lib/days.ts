/** Calendar days in UTC as YYYY-MM-DD, the unit of the stats and revenue routes. */

const DAY_MS = 86_400_000;

export const utcDay = (date: Date): string => date.toISOString().slice(0, 10);

/** The day `days` after (or before, when negative) a YYYY-MM-DD day. */
export const addDays = (day: string, days: number): string => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));

/** How many days from `from` to `to`, both included (0 when `to` is before `from`). */
export const daysBetween = (from: string, to: string): number =>
  Math.max(0, Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1);

/** Every day from `from` to `to`, both included, so a chart shows the days without data as zero. */
export function eachDay(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to && days.length < 1000; day = addDays(day, 1)) days.push(day);
  return days;
}

export type RangePreset = '7d' | '30d' | '90d' | 'month';

export const RANGE_PRESETS: Array<{ id: RangePreset; label: string }> = [
  { id: '7d', label: '7 days' },
  { id: '30d', label: '30 days' },
  { id: '90d', label: '90 days' },
  { id: 'month', label: 'This month' },
];

/** The UTC days a preset covers, ending today (UTC) and including it. */
export function presetRange(preset: RangePreset, now: Date): { from: string; to: string } {
  const today = utcDay(now);
  switch (preset) {
    case '7d':
      return { from: addDays(today, -6), to: today };
    case '30d':
      return { from: addDays(today, -29), to: today };
    case '90d':
      return { from: addDays(today, -89), to: today };
    case 'month':
      return { from: `${today.slice(0, 7)}-01`, to: today };
  }
}
