import { MAX_STATS_DAYS } from '../api/types';
import { addDays, daysBetween, utcDay } from './days';

/**
 * The message log's filters as the screen keeps them (in the URL, so a filtered view can be shared):
 * times are UTC minutes, YYYY-MM-DDTHH:mm, as a datetime-local input gives them.
 */
export interface MessageFilters {
  status?: string;
  email?: string;
  email_key?: string;
  tag?: string;
  from?: string;
  to?: string;
  /** `true`: the test messages (sent with test keys), which the log leaves out otherwise. */
  test?: string;
}

const FILTER_NAMES = ['status', 'email', 'email_key', 'tag', 'from', 'to', 'test'] as const;

export function filtersFromSearch(search: URLSearchParams): MessageFilters {
  const filters: MessageFilters = {};
  for (const name of FILTER_NAMES) {
    const value = search.get(name)?.trim();
    if (value) filters[name] = value;
  }
  return filters;
}

export function filtersToSearch(filters: MessageFilters): URLSearchParams {
  const search = new URLSearchParams();
  for (const name of FILTER_NAMES) {
    const value = filters[name]?.trim();
    if (value) search.set(name, value);
  }
  return search;
}

export const MESSAGES_PER_PAGE = 25;

/**
 * The query of `GET /v1/projects/{p}/messages` for these filters and page: the recipient
 * lower-cased (the API compares addresses case-insensitively), the time range as ISO instants in
 * UTC (`to` includes its whole minute).
 */
export function messageLogQuery(filters: MessageFilters, cursor?: string): Record<string, string | undefined> {
  return {
    status: filters.status || undefined,
    email: filters.email?.trim().toLowerCase() || undefined,
    email_key: filters.email_key?.trim() || undefined,
    tag: filters.tag?.trim() || undefined,
    from: filters.from ? `${filters.from}:00.000Z` : undefined,
    to: filters.to ? `${filters.to}:59.999Z` : undefined,
    test: filters.test === 'true' ? 'true' : undefined,
    limit: String(MESSAGES_PER_PAGE),
    cursor,
  };
}

const DEFAULT_CHART_DAYS = 30;

/**
 * The days the chart shows: the filter's time range when it has one, else the last 30 days
 * (today included), cut to the route's 400 days (keeping the latest).
 */
export function chartRange(filters: MessageFilters, now: Date): { from: string; to: string } {
  const to = filters.to ? filters.to.slice(0, 10) : utcDay(now);
  let from = filters.from ? filters.from.slice(0, 10) : addDays(to, -(DEFAULT_CHART_DAYS - 1));
  if (from > to) from = to;
  if (daysBetween(from, to) > MAX_STATS_DAYS) from = addDays(to, -(MAX_STATS_DAYS - 1));
  return { from, to };
}
