/**
 * JSON Schemas of Statuspage's public API v2 documents, as its clients read them: every field they
 * name is required, no field beyond them, and the enums exactly theirs. The tests validate each
 * endpoint's answer against these; they also document what /api/v2 promises.
 */

const timestamp = { type: 'string', format: 'date-time' } as const;
const nullableTimestamp = { anyOf: [timestamp, { type: 'null' }] } as const;
const nullableString = { type: ['string', 'null'] } as const;

export const COMPONENT_STATUS_ENUM = ['operational', 'degraded_performance', 'partial_outage', 'major_outage', 'under_maintenance'];
export const INDICATOR_ENUM = ['none', 'minor', 'major', 'critical'];
export const INCIDENT_STATUS_ENUM = ['investigating', 'identified', 'monitoring', 'resolved', 'postmortem'];
export const MAINTENANCE_STATUS_ENUM = ['scheduled', 'in_progress', 'verifying', 'completed'];

const page = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'url', 'time_zone', 'updated_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    url: { type: 'string', format: 'uri' },
    time_zone: { type: 'string' },
    updated_at: timestamp,
  },
};

const status = {
  type: 'object',
  additionalProperties: false,
  required: ['indicator', 'description'],
  properties: { indicator: { enum: INDICATOR_ENUM }, description: { type: 'string', minLength: 1 } },
};

const component = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'name',
    'status',
    'created_at',
    'updated_at',
    'position',
    'description',
    'showcase',
    'start_date',
    'group_id',
    'page_id',
    'group',
    'only_show_if_degraded',
  ],
  properties: {
    id: { type: 'string', minLength: 1 },
    name: { type: 'string', minLength: 1 },
    status: { enum: COMPONENT_STATUS_ENUM },
    created_at: timestamp,
    updated_at: timestamp,
    position: { type: 'integer' },
    description: nullableString,
    showcase: { type: 'boolean' },
    start_date: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] },
    group_id: nullableString,
    page_id: { type: 'string' },
    group: { type: 'boolean' },
    only_show_if_degraded: { type: 'boolean' },
    components: { type: 'array', items: { type: 'string' } },
  },
  // A group lists its members; a member never does.
  if: { properties: { group: { const: true } } },
  then: { required: ['components'] },
  else: { not: { required: ['components'] } },
};

const update = (statusEnum: string[]) => ({
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'status',
    'body',
    'incident_id',
    'created_at',
    'updated_at',
    'display_at',
    'affected_components',
    'deliver_notifications',
    'custom_tweet',
    'tweet_id',
  ],
  properties: {
    id: { type: 'string' },
    status: { enum: statusEnum },
    body: { type: 'string' },
    incident_id: { type: 'string' },
    created_at: timestamp,
    updated_at: timestamp,
    display_at: timestamp,
    affected_components: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'name', 'old_status', 'new_status'],
        properties: {
          code: { type: 'string' },
          name: { type: 'string' },
          old_status: { enum: COMPONENT_STATUS_ENUM },
          new_status: { enum: COMPONENT_STATUS_ENUM },
        },
      },
    },
    deliver_notifications: { type: 'boolean' },
    custom_tweet: nullableString,
    tweet_id: nullableString,
  },
});

const incidentProperties = (statusEnum: string[]) => ({
  id: { type: 'string' },
  name: { type: 'string' },
  status: { enum: statusEnum },
  created_at: timestamp,
  updated_at: timestamp,
  monitoring_at: nullableTimestamp,
  resolved_at: nullableTimestamp,
  impact: { enum: INDICATOR_ENUM },
  shortlink: { type: 'string', format: 'uri' },
  started_at: timestamp,
  page_id: { type: 'string' },
  incident_updates: { type: 'array', items: update(statusEnum) },
  components: { type: 'array', items: component },
});
const incidentRequired = Object.keys(incidentProperties([]));

const incident = {
  type: 'object',
  additionalProperties: false,
  required: incidentRequired,
  properties: incidentProperties(INCIDENT_STATUS_ENUM),
};

const maintenance = {
  type: 'object',
  additionalProperties: false,
  required: [...incidentRequired, 'scheduled_for', 'scheduled_until'],
  properties: { ...incidentProperties(MAINTENANCE_STATUS_ENUM), scheduled_for: timestamp, scheduled_until: timestamp },
};

const document = (properties: Record<string, unknown>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

/** One schema per endpoint under /api/v2. */
export const STATUSPAGE_SCHEMAS = {
  'summary.json': document({
    page,
    components: { type: 'array', items: component },
    incidents: { type: 'array', items: incident },
    scheduled_maintenances: { type: 'array', items: maintenance },
    status,
  }),
  'status.json': document({ page, status }),
  'components.json': document({ page, components: { type: 'array', items: component } }),
  'incidents.json': document({ page, incidents: { type: 'array', items: incident } }),
  'incidents/unresolved.json': document({ page, incidents: { type: 'array', items: incident } }),
  'scheduled-maintenances.json': document({ page, scheduled_maintenances: { type: 'array', items: maintenance } }),
  'scheduled-maintenances/upcoming.json': document({ page, scheduled_maintenances: { type: 'array', items: maintenance } }),
  'scheduled-maintenances/active.json': document({ page, scheduled_maintenances: { type: 'array', items: maintenance } }),
} as const;
