import type { Incident, Maintenance, ObservedStatus, StatusSnapshot } from '../domain/model';
import { overallStatus, STATUS_LABELS, statusLines } from '../domain/view';

/** Atom and RSS of incidents and maintenance, and SVG badges: text built by hand, so everything is escaped here. */

/** XML text and attribute escaping; also drops the control characters XML 1.0 forbids. */
// eslint-disable-next-line no-control-regex -- exactly the characters XML cannot carry
const FORBIDDEN_IN_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export const escapeXml = (text: string): string =>
  text
    .replace(FORBIDDEN_IN_XML, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

interface FeedEntry {
  id: string;
  title: string;
  updated: Date;
  published: Date;
  link: string;
  /** Plain text: every update, newest first. */
  text: string;
}

function entries(snapshot: StatusSnapshot, baseUrl: string): FeedEntry[] {
  const toEntry = (item: Incident | Maintenance, kind: string): FeedEntry => ({
    id: item.id,
    title: `${kind}: ${item.name}`,
    updated: item.updatedAt,
    published: item.createdAt,
    link: `${baseUrl}/incidents/${encodeURIComponent(item.id)}`,
    text: item.updates.map((update) => `${update.at.toISOString()} ${update.status}: ${update.body}`).join('\n\n'),
  });
  return [...snapshot.incidents.map((i) => toEntry(i, 'Incident')), ...snapshot.maintenances.map((m) => toEntry(m, 'Maintenance'))]
    .sort((a, b) => b.updated.getTime() - a.updated.getTime())
    .slice(0, 50);
}

const lastUpdate = (list: FeedEntry[], snapshot: StatusSnapshot): Date => list[0]?.updated ?? snapshot.generatedAt;

export function atomFeed(snapshot: StatusSnapshot, baseUrl: string): string {
  const list = entries(snapshot, baseUrl);
  const items = list
    .map(
      (entry) => `<entry><id>${escapeXml(`${baseUrl}/incidents/${entry.id}`)}</id><title>${escapeXml(entry.title)}</title>
<updated>${entry.updated.toISOString()}</updated><published>${entry.published.toISOString()}</published>
<link rel="alternate" type="text/html" href="${escapeXml(entry.link)}"/><content type="text">${escapeXml(entry.text)}</content></entry>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en"><id>${escapeXml(`${baseUrl}/history`)}</id>
<title>${escapeXml(`${snapshot.page.name} status history`)}</title><updated>${lastUpdate(list, snapshot).toISOString()}</updated>
<link rel="alternate" type="text/html" href="${escapeXml(`${baseUrl}/history`)}"/><link rel="self" type="application/atom+xml" href="${escapeXml(`${baseUrl}/history.atom`)}"/>
<author><name>${escapeXml(snapshot.page.name)}</name></author>
${items}
</feed>
`;
}

export function rssFeed(snapshot: StatusSnapshot, baseUrl: string): string {
  const list = entries(snapshot, baseUrl);
  const items = list
    .map(
      (entry) => `<item><title>${escapeXml(entry.title)}</title><link>${escapeXml(entry.link)}</link>
<guid isPermaLink="false">${escapeXml(entry.id)}</guid><pubDate>${entry.published.toUTCString()}</pubDate><description>${escapeXml(entry.text)}</description></item>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>${escapeXml(`${snapshot.page.name} status history`)}</title>
<link>${escapeXml(`${baseUrl}/history`)}</link><description>${escapeXml(`Incidents and maintenance of ${snapshot.page.name}`)}</description>
<atom:link href="${escapeXml(`${baseUrl}/history.rss`)}" rel="self" type="application/rss+xml"/><lastBuildDate>${lastUpdate(list, snapshot).toUTCString()}</lastBuildDate>
${items}
</channel></rss>
`;
}

const BADGE_COLOURS: Record<ObservedStatus | 'none' | 'minor' | 'major' | 'critical', string> = {
  operational: '#2f9e5b',
  none: '#2f9e5b',
  degraded_performance: '#b8860b',
  minor: '#b8860b',
  partial_outage: '#d0641a',
  major: '#d0641a',
  major_outage: '#c62f2f',
  critical: '#c62f2f',
  under_maintenance: '#2f6fcf',
  unknown: '#6b7280',
};

/** A shields-style badge: label on grey, the status on its colour. Widths are estimated (≈7 px a character at 11 px). */
function badge(label: string, value: string, colour: string): string {
  const labelWidth = 10 + label.length * 7;
  const valueWidth = 10 + value.length * 7;
  const width = labelWidth + valueWidth;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${escapeXml(`${label}: ${value}`)}">
<title>${escapeXml(`${label}: ${value}`)}</title>
<rect width="${labelWidth}" height="20" fill="#555"/><rect x="${labelWidth}" width="${valueWidth}" height="20" fill="${colour}"/>
<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">
<text x="${labelWidth / 2}" y="14">${escapeXml(label)}</text><text x="${labelWidth + valueWidth / 2}" y="14">${escapeXml(value)}</text></g></svg>
`;
}

/** The overall badge (`/badge.svg`). */
export function overallBadge(snapshot: StatusSnapshot): string {
  const overall = overallStatus(snapshot);
  const colour = overall.indicator === 'none' && overall.maintenance ? BADGE_COLOURS.under_maintenance : BADGE_COLOURS[overall.indicator];
  return badge(snapshot.page.name, overall.description.toLowerCase(), colour);
}

/** One public line's badge (`/badge/{id}.svg`), or undefined for an id the public page does not show. */
export function componentBadge(snapshot: StatusSnapshot, lineId: string): string | undefined {
  const line = statusLines(snapshot, 'public').find((candidate) => candidate.id === lineId);
  if (!line) return undefined;
  return badge(line.name, STATUS_LABELS[line.status].toLowerCase(), BADGE_COLOURS[line.status]);
}
