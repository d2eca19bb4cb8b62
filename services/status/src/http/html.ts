import { createHash } from 'node:crypto';
import type { CanarySample, Incident, IncidentUpdate, Maintenance, ObservedStatus, StatusSnapshot } from '../domain/model';
import {
  activeMaintenances,
  dayCells,
  formatUptime,
  openIncidents,
  overallStatus,
  STATUS_LABELS,
  statusLines,
  upcomingMaintenances,
  uptimePercent,
  type DayCell,
  type StatusLine,
} from '../domain/view';

/**
 * The status page as server-rendered HTML: complete without JavaScript; one inline stylesheet and
 * one inline script, both allowed by hash in the Content-Security-Policy (a nonce would differ per
 * answer and break the ETag's 304s). The script only rewrites UTC times into the reader's zone.
 */

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const STYLE = `
:root{color-scheme:light dark;--bg:#f7f8fa;--card:#fff;--text:#1d2330;--muted:#5c6575;--line:#dfe3ea;
--ok:#2f9e5b;--degraded:#d4a21a;--partial:#e07a1f;--major:#d23c3c;--maint:#3b7ddd;--unknown:#8a93a3;--empty:#d9dde4}
@media (prefers-color-scheme:dark){:root{--bg:#0f1217;--card:#181c24;--text:#e6e9ef;--muted:#9aa3b2;--line:#2a303b;
--ok:#3fbf73;--degraded:#e6b93a;--partial:#f08f3c;--major:#ef5a5a;--maint:#5a98f0;--unknown:#7d8697;--empty:#2c323d}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--text);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:880px;margin:0 auto;padding:24px 16px 48px}a{color:var(--maint)}
header{display:flex;justify-content:space-between;align-items:baseline;flex-wrap:wrap;gap:8px}
h1{font-size:1.5rem;margin:0}h2{font-size:1.1rem;margin:28px 0 10px}nav a{margin-left:12px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 16px;margin:10px 0}
.banner{font-size:1.2rem;font-weight:600;color:#fff;border:0}.banner.i-none{background:var(--ok)}.banner.i-minor{background:var(--degraded);color:#1d2330}
.banner.i-major{background:var(--partial)}.banner.i-critical{background:var(--major)}.banner.maintenance{background:var(--maint)}
.line{display:flex;justify-content:space-between;gap:12px;align-items:baseline}.name{font-weight:600}.desc,.muted,time{color:var(--muted);font-size:.85rem}
.st{font-weight:600;white-space:nowrap}.st.s-operational{color:var(--ok)}.st.s-degraded_performance{color:var(--degraded)}.st.s-partial_outage{color:var(--partial)}
.st.s-major_outage{color:var(--major)}.st.s-under_maintenance{color:var(--maint)}.st.s-unknown{color:var(--unknown)}
.bar{display:flex;gap:2px;height:34px;margin:8px 0 4px;align-items:stretch}.bar>*{flex:1;min-width:0;border-radius:2px;position:relative}
.d{background:var(--empty)}.d.s-operational{background:var(--ok)}.d.s-degraded_performance{background:var(--degraded)}.d.s-partial_outage{background:var(--partial)}
.d.s-major_outage{background:var(--major)}.d.s-under_maintenance{background:var(--maint)}.d.s-unknown{background:var(--unknown)}
details.d>summary{list-style:none;height:100%;cursor:pointer}details.d>summary::-webkit-details-marker{display:none}
details.d>.tip{position:absolute;z-index:2;top:38px;right:0;width:260px;background:var(--card);color:var(--text);border:1px solid var(--line);border-radius:6px;padding:8px;font-size:.8rem;box-shadow:0 4px 14px #0003}
.tip ul{margin:4px 0 0;padding-left:18px}.d:focus-visible{outline:2px solid var(--text)}.legend{display:flex;justify-content:space-between;color:var(--muted);font-size:.8rem}
.update{border-left:3px solid var(--line);padding-left:10px;margin:8px 0}.update b{text-transform:capitalize}
svg.chart{width:100%;height:auto;display:block}.chart .grid{stroke:var(--line);stroke-width:1}.chart .delay{fill:none;stroke:var(--maint);stroke-width:2}
.chart .lost{fill:var(--major)}.chart .dot{fill:var(--maint)}.chart text{fill:var(--muted);font-size:11px}
form.sub{display:flex;gap:8px;flex-wrap:wrap}input[type=email]{flex:1;min-width:200px;padding:8px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--text)}
button{padding:8px 14px;border:0;border-radius:6px;background:var(--maint);color:#fff;font-weight:600;cursor:pointer}
footer{margin-top:32px;color:var(--muted);font-size:.85rem}
`;

const SCRIPT = `(function(){function p(n){return(n<10?'0':'')+n}
document.querySelectorAll('time[data-local]').forEach(function(t){var d=new Date(t.getAttribute('datetime'));if(isNaN(d.getTime()))return;
var o=-d.getTimezoneOffset(),a=Math.abs(o);t.textContent=d.getFullYear()+'-'+p(d.getMonth()+1)+'-'+p(d.getDate())+' '+p(d.getHours())+':'+p(d.getMinutes())+
' UTC'+(o<0?'-':'+')+p(Math.floor(a/60))+':'+p(a%60);t.title='Your time zone; '+t.getAttribute('datetime')+' in UTC'})})();`;

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The Content-Security-Policy of every HTML answer: nothing but our own inline style and script, by hash. */
export const HTML_CSP = [
  "default-src 'none'",
  `style-src ${sha256(STYLE)}`,
  `script-src ${sha256(SCRIPT)}`,
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** `2026-11-23 21:04 UTC+00:00` in a `<time>` the script localises. */
export const timeTag = (at: Date): string => {
  const text = `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC+00:00`;
  return `<time datetime="${at.toISOString()}" data-local>${text}</time>`;
};

export interface PageOptions {
  baseUrl: string;
  view: 'public' | 'operator';
  /** A line shown above everything (e.g. after subscribing). */
  notice?: string;
}

function layout(snapshot: StatusSnapshot, title: string, body: string, options: Pick<PageOptions, 'baseUrl'>): string {
  const name = escapeHtml(snapshot.page.name);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark"><title>${escapeHtml(title)}</title>
<link rel="alternate" type="application/atom+xml" title="${name} incidents (Atom)" href="${escapeHtml(options.baseUrl)}/history.atom">
<link rel="alternate" type="application/rss+xml" title="${name} incidents (RSS)" href="${escapeHtml(options.baseUrl)}/history.rss">
<style>${STYLE}</style></head>
<body><main><header><h1><a href="${escapeHtml(options.baseUrl)}/">${name}</a></h1>
<nav><a href="${escapeHtml(options.baseUrl)}/history">Incident history</a><a href="${escapeHtml(options.baseUrl)}/history.atom">Atom</a><a href="${escapeHtml(options.baseUrl)}/history.rss">RSS</a><a href="${escapeHtml(options.baseUrl)}/api/v2/summary.json">API</a></nav></header>
${body}
<footer>Times are shown in UTC, or in your time zone when JavaScript runs. Page generated ${timeTag(snapshot.generatedAt)}.</footer>
</main><script>${SCRIPT}</script></body></html>`;
}

const statusBadge = (status: ObservedStatus): string => `<span class="st s-${status}">${STATUS_LABELS[status]}</span>`;

function updatesHtml(updates: IncidentUpdate[]): string {
  return updates
    .map(
      (update) =>
        `<div class="update"><b>${escapeHtml(update.status.replace('_', ' '))}</b> — ${escapeHtml(update.body)}<br>${timeTag(update.at)}</div>`,
    )
    .join('');
}

function incidentCard(incident: Incident | Maintenance, baseUrl: string, kind: 'incident' | 'maintenance'): string {
  const schedule =
    'scheduledFor' in incident
      ? `<div class="muted">Scheduled ${timeTag(incident.scheduledFor)} – ${timeTag(incident.scheduledUntil)}</div>`
      : '';
  return `<section class="card ${kind}"><div class="line"><a class="name" href="${escapeHtml(baseUrl)}/incidents/${encodeURIComponent(incident.id)}">${escapeHtml(incident.name)}</a>
<span class="muted">${escapeHtml(kind === 'maintenance' ? 'Maintenance' : `Impact: ${incident.impact}`)} · ${escapeHtml(incident.status.replace('_', ' '))}</span></div>${schedule}${updatesHtml(incident.updates.slice(0, 3))}</section>`;
}

function dayCellHtml(cell: DayCell, incidents: Map<string, Incident | Maintenance>): string {
  const state = cell.worst ?? 'empty';
  const uptime = cell.observedMs > 0 ? formatUptime(uptimePercent([cell])) : 'no data';
  const label = `${cell.day}: ${cell.worst ? STATUS_LABELS[cell.worst] : 'No data'}, ${uptime}`;
  const named = cell.incidentIds.map((id) => incidents.get(id)).filter((incident): incident is Incident | Maintenance => !!incident);
  const titleText = named.length > 0 ? `${label}. ${named.map((incident) => incident.name).join('; ')}` : label;
  if (named.length === 0 && (cell.worst === null || cell.worst === 'operational')) {
    return `<span class="d s-${state}" title="${escapeHtml(titleText)}" aria-label="${escapeHtml(titleText)}"></span>`;
  }
  // A <details>: a tap or Enter opens the day's incidents, where a title would need a mouse.
  const list = named.map((incident) => `<li>${escapeHtml(incident.name)}</li>`).join('');
  return `<details class="d s-${state}"><summary title="${escapeHtml(titleText)}" aria-label="${escapeHtml(titleText)}"></summary><div class="tip"><b>${escapeHtml(cell.day)}</b><br>${escapeHtml(cell.worst ? STATUS_LABELS[cell.worst] : 'No data')}, ${escapeHtml(uptime)}${list ? `<ul>${list}</ul>` : '<br>No incident recorded.'}</div></details>`;
}

function lineHtml(
  snapshot: StatusSnapshot,
  line: StatusLine,
  incidents: Map<string, Incident | Maintenance>,
  view: PageOptions['view'],
): string {
  const cells = dayCells(snapshot, line);
  const detail = view === 'operator' && line.detail ? `<div class="desc">${escapeHtml(line.detail)}</div>` : '';
  return `<section class="card component" data-component="${escapeHtml(line.id)}"><div class="line"><div><span class="name">${escapeHtml(line.name)}</span>
<div class="desc">${escapeHtml(line.description)}</div>${detail}</div>${statusBadge(line.status)}</div>
<div class="bar" role="img" aria-label="${escapeHtml(`${line.name}, the last ${cells.length} days`)}">${cells.map((cell) => dayCellHtml(cell, incidents)).join('')}</div>
<div class="legend"><span>${cells.length} days ago</span><span class="uptime">${formatUptime(uptimePercent(cells))}</span><span>Today</span></div></section>`;
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** The canary's send delay over the last 24 h as an inline SVG: a line per unbroken run, a red tick per lost send. */
export function canaryChart(samples: CanarySample[], now: Date): string {
  const width = 720;
  const height = 160;
  const left = 44;
  const bottom = 20;
  const top = 10;
  const from = now.getTime() - 86_400_000;
  const recent = samples.filter((sample) => sample.at.getTime() >= from && sample.at.getTime() <= now.getTime());
  const delays = recent.map((sample) => sample.delayMs).filter((delay): delay is number => delay !== null);
  const sorted = [...delays].sort((a, b) => a - b);
  const maxMs = Math.max(1000, Math.ceil((sorted[sorted.length - 1] ?? 0) / 1000) * 1000);
  const x = (at: Date) => left + ((at.getTime() - from) / 86_400_000) * (width - left - 4);
  const y = (ms: number) => top + (1 - ms / maxMs) * (height - top - bottom);
  const runs: string[][] = [[]];
  for (const sample of [...recent].sort((a, b) => a.at.getTime() - b.at.getTime())) {
    if (sample.delayMs === null) runs.push([]);
    else runs[runs.length - 1]!.push(`${x(sample.at).toFixed(1)},${y(sample.delayMs).toFixed(1)}`);
  }
  const lines = runs
    .filter((run) => run.length > 0)
    .map((run) => {
      if (run.length > 1) return `<polyline class="delay" points="${run.join(' ')}"/>`;
      const [cx, cy] = run[0]!.split(',');
      return `<circle class="dot" cx="${cx}" cy="${cy}" r="2"/>`;
    })
    .join('');
  const lost = recent
    .filter((sample) => sample.delayMs === null)
    .map((sample) => `<rect class="lost" x="${(x(sample.at) - 1).toFixed(1)}" y="${top}" width="2" height="8"/>`)
    .join('');
  const hours = [0, 6, 12, 18, 24].map((h) => {
    const at = new Date(from + h * 3_600_000);
    return `<line class="grid" x1="${x(at).toFixed(1)}" x2="${x(at).toFixed(1)}" y1="${top}" y2="${height - bottom}"/><text x="${x(at).toFixed(1)}" y="${height - 5}" text-anchor="${h === 0 ? 'start' : h === 24 ? 'end' : 'middle'}">${h === 24 ? 'now' : `${at.toISOString().slice(11, 16)} UTC`}</text>`;
  });
  const summary =
    recent.length === 0
      ? 'No canary sends in the last 24 hours.'
      : `Median ${seconds(quantile(sorted, 0.5))}, 95th percentile ${seconds(quantile(sorted, 0.95))}, ${recent.length - delays.length} of ${recent.length} sends lost.`;
  return `<figure class="card canary"><svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="canary-title canary-desc" xmlns="http://www.w3.org/2000/svg">
<title id="canary-title">Canary send delay, last 24 hours</title><desc id="canary-desc">${escapeHtml(summary)}</desc>
<line class="grid" x1="${left}" x2="${width}" y1="${y(0)}" y2="${y(0)}"/><line class="grid" x1="${left}" x2="${width}" y1="${y(maxMs)}" y2="${y(maxMs)}"/>
<text x="${left - 6}" y="${y(0) + 4}" text-anchor="end">0 s</text><text x="${left - 6}" y="${y(maxMs) + 4}" text-anchor="end">${seconds(maxMs)}</text>
${hours.join('')}${lines}${lost}</svg><figcaption class="muted">${escapeHtml(summary)}</figcaption></figure>`;
}

const incidentIndex = (snapshot: StatusSnapshot): Map<string, Incident | Maintenance> =>
  new Map<string, Incident | Maintenance>([...snapshot.incidents, ...snapshot.maintenances].map((incident) => [incident.id, incident]));

/** The status page: the overall banner, open incidents and maintenance, each line with its 90 days, the canary chart, a subscribe form. */
export function renderStatusPage(snapshot: StatusSnapshot, options: PageOptions): string {
  const overall = overallStatus(snapshot);
  const index = incidentIndex(snapshot);
  const open = openIncidents(snapshot);
  const active = activeMaintenances(snapshot);
  const upcoming = upcomingMaintenances(snapshot);
  const bannerClass = overall.indicator === 'none' && overall.maintenance ? 'maintenance' : '';
  const body = `${options.notice ? `<p class="card notice">${escapeHtml(options.notice)}</p>` : ''}
<section class="card banner i-${overall.indicator} ${bannerClass}" data-indicator="${overall.indicator}">${escapeHtml(overall.description)}</section>
${options.view === 'operator' ? '<p class="muted">Operator view: every component, with the reason for its status.</p>' : ''}
${open.length > 0 ? `<h2>Open incidents</h2>${open.map((incident) => incidentCard(incident, options.baseUrl, 'incident')).join('')}` : ''}
${active.length > 0 ? `<h2>Maintenance in progress</h2>${active.map((m) => incidentCard(m, options.baseUrl, 'maintenance')).join('')}` : ''}
${upcoming.length > 0 ? `<h2>Scheduled maintenance</h2>${upcoming.map((m) => incidentCard(m, options.baseUrl, 'maintenance')).join('')}` : ''}
<h2>Components</h2>
${statusLines(snapshot, options.view)
  .map((line) => lineHtml(snapshot, line, index, options.view))
  .join('\n')}
<h2>Send delay (canary)</h2>
${canaryChart(snapshot.canary, snapshot.generatedAt)}
<h2>Get notified</h2>
<form class="card sub" method="post" action="${escapeHtml(options.baseUrl)}/subscribe"><label for="sub-email" class="muted">Email me about incidents and maintenance (you confirm by mail first):</label>
<input id="sub-email" type="email" name="email" required autocomplete="email" placeholder="you@example.com"><button type="submit">Subscribe</button></form>
<p class="muted">Or subscribe a webhook: <code>POST /api/v2/subscribers {"webhook": "https://…"}</code>.</p>`;
  return layout(snapshot, `${snapshot.page.name} status`, body, options);
}

/** Every incident and maintenance, newest first, grouped by UTC month. */
export function renderHistoryPage(snapshot: StatusSnapshot, options: Pick<PageOptions, 'baseUrl'>): string {
  const entries = [
    ...snapshot.incidents.map((incident) => ({ at: incident.startedAt, html: incidentCard(incident, options.baseUrl, 'incident') })),
    ...snapshot.maintenances.map((m) => ({ at: m.scheduledFor, html: incidentCard(m, options.baseUrl, 'maintenance') })),
  ].sort((a, b) => b.at.getTime() - a.at.getTime());
  let month = '';
  const parts: string[] = [];
  for (const entry of entries) {
    const entryMonth = entry.at.toISOString().slice(0, 7);
    if (entryMonth !== month) {
      month = entryMonth;
      parts.push(`<h2>${escapeHtml(month)}</h2>`);
    }
    parts.push(entry.html);
  }
  const body = `<h2>Incident history</h2>${parts.length > 0 ? parts.join('') : '<p class="card">No incidents reported.</p>'}`;
  return layout(snapshot, `${snapshot.page.name} incident history`, body, options);
}

/** One incident or maintenance with all its updates. */
export function renderIncidentPage(
  snapshot: StatusSnapshot,
  incident: Incident | Maintenance,
  options: Pick<PageOptions, 'baseUrl'>,
): string {
  const lines = statusLines(snapshot, 'public').filter((line) => line.memberIds.some((id) => incident.componentIds.includes(id)));
  const isMaintenance = 'scheduledFor' in incident;
  const body = `<h2>${escapeHtml(incident.name)}</h2>
<section class="card"><div class="muted">${isMaintenance ? 'Maintenance' : `Impact: ${escapeHtml(incident.impact)}`} · ${escapeHtml(incident.status.replace('_', ' '))}</div>
${isMaintenance ? `<div class="muted">Scheduled ${timeTag(incident.scheduledFor)} – ${timeTag(incident.scheduledUntil)}</div>` : `<div class="muted">Started ${timeTag(incident.startedAt)}</div>`}
${lines.length > 0 ? `<div class="muted">Affects: ${lines.map((line) => escapeHtml(line.name)).join(', ')}</div>` : ''}
${updatesHtml(incident.updates)}</section>`;
  return layout(snapshot, `${incident.name} — ${snapshot.page.name}`, body, options);
}

/** A small page for the subscription flow's answers (confirm, unsubscribe, errors). */
export function renderMessagePage(
  snapshot: StatusSnapshot,
  title: string,
  message: string,
  options: Pick<PageOptions, 'baseUrl'>,
  formHtml = '',
): string {
  return layout(
    snapshot,
    `${title} — ${snapshot.page.name}`,
    `<h2>${escapeHtml(title)}</h2><section class="card"><p>${escapeHtml(message)}</p>${formHtml}</section>`,
    options,
  );
}
