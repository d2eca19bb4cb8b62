import { Bar, CartesianGrid, ComposedChart, Legend, Line, Tooltip, XAxis, YAxis } from 'recharts';
import { TERMINAL_STATUSES, type MessageStats } from '../api/types';
import { ChartBox, useChartTheme } from './chart-theme';

/**
 * Each day counts the messages that reached a status that day: a message accepted and sent on
 * one day counts as queued and as sent. So the outcomes are stacked and the accepted ("queued")
 * are a line beside them, rather than one stack that would count every message twice.
 */
const OUTCOMES = [
  { status: 'sent', color: '#10b981' },
  { status: 'deferred', color: '#f59e0b' },
  { status: 'bounced', color: '#ef4444' },
  { status: 'failed', color: '#9f1239' },
  { status: 'suppressed', color: '#94a3b8' },
  { status: 'canceled', color: '#64748b' },
] as const;

export const statusTotals = (stats: MessageStats): Record<string, number> => {
  const totals: Record<string, number> = {};
  for (const day of stats.data) for (const [status, count] of Object.entries(day.counts)) totals[status] = (totals[status] ?? 0) + count;
  return totals;
};

/** Accepted in the range and not yet settled in it: sent, bounced, failed, suppressed or canceled (a scheduled message waits in flight). */
export const inFlight = (stats: MessageStats): number => {
  const totals = statusTotals(stats);
  const settled = TERMINAL_STATUSES.reduce((sum, status) => sum + (totals[status] ?? 0), 0);
  return (totals['queued'] ?? 0) - settled;
};

export function MessageStatsChart({ stats }: { stats: MessageStats }) {
  const theme = useChartTheme();
  const rows = stats.data.map((d) => ({ day: d.day, ...d.counts }));
  const totals = statusTotals(stats);
  return (
    <figure>
      <ChartBox className="h-72">
        <ComposedChart data={rows} margin={{ top: 8, right: 8, bottom: 24, left: 0 }}>
          <CartesianGrid {...theme.grid} />
          <XAxis {...theme.dayAxis} />
          <YAxis allowDecimals={false} tick={theme.tick} width={40} />
          <Tooltip {...theme.tooltip} />
          <Legend verticalAlign="top" height={28} wrapperStyle={{ fontSize: 12 }} />
          {OUTCOMES.map(({ status, color }) => (
            <Bar key={status} dataKey={status} stackId="outcome" fill={color} name={status} isAnimationActive={false} />
          ))}
          <Line dataKey="queued" name="queued (accepted)" stroke={theme.accent} dot={false} isAnimationActive={false} />
        </ComposedChart>
      </ChartBox>
      {/* What the chart shows, in words: for screen readers, and a check for the reader's eye. */}
      <figcaption aria-label="Totals by status" className="mt-1 text-xs text-slate-600 dark:text-slate-300">
        {stats.data[0]?.day} to {stats.data.at(-1)?.day} (UTC): {totals['queued'] ?? 0} accepted
        {OUTCOMES.map(({ status }) => `, ${totals[status] ?? 0} ${status}`).join('')}.
      </figcaption>
    </figure>
  );
}
