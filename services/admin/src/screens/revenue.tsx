import { useQuery } from '@tanstack/react-query';
import { useParams, useSearchParams } from 'react-router';
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import type { Revenue } from '../api/types';
import { ChartBox, useChartTheme } from '../components/chart-theme';
import { Card, Empty, ErrorState, Loading } from '../components/ui';
import { eachDay, presetRange, RANGE_PRESETS, type RangePreset } from '../lib/days';
import { formatMoney, toMajorUnits } from '../lib/money';

const isPreset = (value: string | null): value is RangePreset => RANGE_PRESETS.some((p) => p.id === value);

/** One currency's revenue per UTC day: currencies are never added together, so each has its own chart. */
function CurrencyChart({ revenue, currency }: { revenue: Revenue; currency: string }) {
  const theme = useChartTheme();
  const byDay = new Map(revenue.days.filter((d) => d.currency === currency).map((d) => [d.day, d]));
  const rows = eachDay(revenue.from, revenue.to).map((day) => ({
    day,
    amount: toMajorUnits(byDay.get(day)?.total ?? 0, currency),
    minor: byDay.get(day)?.total ?? 0,
    payments: byDay.get(day)?.payments ?? 0,
  }));
  return (
    <ChartBox className="h-56">
      <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 24, left: 8 }}>
        <CartesianGrid {...theme.grid} />
        <XAxis {...theme.dayAxis} />
        <YAxis tick={theme.tick} width={56} />
        <Tooltip
          {...theme.tooltip}
          formatter={(_value, _name, item) => {
            const row = item.payload as (typeof rows)[number];
            return [`${formatMoney(row.minor, currency)} (${row.payments} payment${row.payments === 1 ? '' : 's'})`, currency];
          }}
        />
        <Bar dataKey="amount" name={currency} fill={theme.accent} isAnimationActive={false} />
      </BarChart>
    </ChartBox>
  );
}

/** Payments and revenue of a project: per currency, per UTC day, over a preset range. */
export function RevenueScreen() {
  const { projectId = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const requested = search.get('range');
  const preset: RangePreset = isPreset(requested) ? requested : '30d';
  const range = presetRange(preset, new Date());
  const revenue = useQuery({
    queryKey: queryKeys.revenue(projectId, range.from, range.to),
    queryFn: () => api<Revenue>(`/projects/${projectId}/analytics/revenue`, { query: range }),
    placeholderData: (previous) => previous,
  });
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-2xl font-semibold">Revenue</h1>
        <div role="group" aria-label="Date range" className="flex flex-wrap gap-1">
          {RANGE_PRESETS.map((p) => (
            <button
              key={p.id}
              type="button"
              aria-pressed={p.id === preset}
              onClick={() => setSearch({ range: p.id }, { replace: true })}
              className={`rounded-md px-3 py-1.5 text-sm font-medium ${p.id === preset ? 'bg-indigo-600 text-white' : 'border border-slate-300 bg-white text-slate-800 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100 dark:hover:bg-slate-700'}`}
            >
              {p.label}
            </button>
          ))}
        </div>
      </div>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        {range.from} to {range.to} (UTC days, both included). Amounts are what your backend recorded with{' '}
        <code>POST /v1/projects/…/payments</code>.
      </p>
      {revenue.isPending ? (
        <Loading what="revenue" />
      ) : revenue.isError ? (
        <ErrorState error={revenue.error} retry={() => void revenue.refetch()} />
      ) : revenue.data.currencies.length === 0 ? (
        <Card>
          <Empty>No payment in this range.</Empty>
        </Card>
      ) : (
        <>
          <Card title="Totals">
            <ul aria-label="Totals per currency" className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
              {revenue.data.currencies.map((c) => (
                <li key={c.currency} className="rounded-md border border-slate-200 p-3 dark:border-slate-800">
                  <p className="text-xs font-medium text-slate-500 dark:text-slate-400">{c.currency}</p>
                  <p className="text-2xl font-semibold">{formatMoney(c.total, c.currency)}</p>
                  <p className="text-xs text-slate-600 dark:text-slate-300">
                    {c.payments} payment{c.payments === 1 ? '' : 's'} · {c.paying_users} paying user{c.paying_users === 1 ? '' : 's'} ·{' '}
                    {formatMoney(Math.round(c.average_per_paying_user), c.currency)} per paying user
                  </p>
                </li>
              ))}
            </ul>
            <p className="mt-3 text-sm text-slate-600 dark:text-slate-300">
              {revenue.data.paying_users} paying user{revenue.data.paying_users === 1 ? '' : 's'} in this range, all currencies.
            </p>
          </Card>
          {revenue.data.currencies.map((c) => (
            <Card key={c.currency} title={`${c.currency} per day`}>
              <CurrencyChart revenue={revenue.data} currency={c.currency} />
            </Card>
          ))}
        </>
      )}
    </div>
  );
}
