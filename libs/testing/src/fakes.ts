/*
 * Light fakes for unit tests: this module imports nothing at run time (no kafkajs, no database
 * driver), so a service's domain tests can take it from `@postbus/testing/fakes` without loading
 * the infrastructure helpers the package's index brings.
 */

const CONTEXT_DEFAULTS = { type: 't', source: 's', time: '2026-01-01T00:00:00.000Z', key: 'k', topic: 't', partition: 0, offset: '0' };

/**
 * The context of a consumed message with this event id (a MessageContext of `@postbus/bus`):
 * placeholder type, source, key and topic, a fixed time, partition 0 at offset 0; `overrides`
 * replace any of them.
 */
export const messageContext = (id: string, overrides: Partial<typeof CONTEXT_DEFAULTS> & { requestId?: string } = {}) => ({
  id,
  ...CONTEXT_DEFAULTS,
  ...overrides,
});
