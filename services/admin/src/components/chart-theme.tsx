import type { ReactElement } from 'react';
import { ResponsiveContainer } from 'recharts';
import { usePrefersDark } from '../lib/use-prefers-dark';

/**
 * What the panel's charts share, in the system's colour scheme: the grid, the UTC-day axis, the
 * tooltip, the one series' accent colour. Spread into Recharts' own components (`<XAxis {...theme.dayAxis} />`).
 */
export function useChartTheme() {
  const dark = usePrefersDark();
  const axis = dark ? '#94a3b8' : '#475569';
  const tick = { fill: axis, fontSize: 11 };
  return {
    tick,
    accent: dark ? '#818cf8' : '#4f46e5',
    grid: { strokeDasharray: '3 3', stroke: dark ? '#1e293b' : '#e2e8f0' },
    dayAxis: {
      dataKey: 'day',
      tick,
      tickFormatter: (day: string) => day.slice(5),
      label: { value: 'UTC day', position: 'insideBottom', offset: -16, fill: axis, fontSize: 12 } as const,
    },
    tooltip: {
      contentStyle: { background: dark ? '#0f172a' : '#fff', borderColor: dark ? '#334155' : '#cbd5e1' },
      labelFormatter: (day: unknown) => `${typeof day === 'string' ? day : ''} (UTC)`,
    },
  };
}

/** A chart as wide as its box, `className` its height; hidden from screen readers, which get the figures in words. */
export function ChartBox({ className, children }: { className: string; children: ReactElement }) {
  return (
    <div className={`${className} w-full`} aria-hidden="true">
      <ResponsiveContainer width="100%" height="100%">
        {children}
      </ResponsiveContainer>
    </div>
  );
}
