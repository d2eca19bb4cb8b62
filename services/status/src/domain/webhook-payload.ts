import type { StatusEvent, StatusSnapshot } from './model';
import { publishedStatus, overallStatus } from './view';
import { StatuspageView } from './statuspage';

/**
 * A webhook notification in Statuspage's webhook shape (`meta`, `page`, then `incident` or
 * `component_update` + `component`), so receivers written for Statuspage read it as is. A
 * maintenance goes as an `incident` with its schedule, as Statuspage sends it.
 */
export function webhookPayload(event: StatusEvent, snapshot: StatusSnapshot, baseUrl: string, unsubscribeUrl: string): object | undefined {
  const view = new StatuspageView(snapshot, baseUrl);
  const overall = overallStatus(snapshot);
  const common = {
    meta: { unsubscribe: unsubscribeUrl, documentation: `${baseUrl}/api/v2/summary.json` },
    page: { id: snapshot.page.id, status_indicator: overall.indicator, status_description: overall.description },
  };
  switch (event.kind) {
    case 'incident':
      return { ...common, incident: view.incident(event.incident) };
    case 'maintenance':
      return { ...common, incident: view.maintenance(event.maintenance) };
    case 'component': {
      const component = view.publicComponent(event.component.id);
      if (!component) return undefined;
      return {
        ...common,
        component_update: {
          id: `${event.component.id}-${event.component.since.getTime()}`,
          component_id: component.id,
          created_at: event.component.since.toISOString(),
          old_status: publishedStatus(event.previous),
          new_status: publishedStatus(event.component.status),
        },
        component,
      };
    }
  }
}
