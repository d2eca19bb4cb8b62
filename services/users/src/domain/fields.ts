import { STANDARD_ATTRIBUTE_NAMES, type StandardAttributeName } from '@postbus/contracts';

export interface FieldChanges {
  set: Record<string, unknown>;
  unset: string[];
  /** user_id: undefined when untouched, null when removed. */
  userId?: string | null;
  /** Names as the client sent them, for the user.updated event. */
  changed: string[];
}

const isStandard = (name: string): name is StandardAttributeName => (STANDARD_ATTRIBUTE_NAMES as readonly string[]).includes(name);

/**
 * Splits a `fields` object into document changes: standard attributes are top-level, anything
 * else lives under `fields.<name>`; null removes (standard ones become null, custom ones go).
 */
export function planFieldChanges(fields: Record<string, unknown>): FieldChanges {
  const plan: FieldChanges = { set: {}, unset: [], changed: [] };
  for (const [name, value] of Object.entries(fields)) {
    plan.changed.push(name);
    if (name === 'user_id') plan.userId = typeof value === 'string' ? value : null;
    else if (isStandard(name)) plan.set[name] = value;
    else if (value === null) plan.unset.push(`fields.${name}`);
    else plan.set[`fields.${name}`] = value;
  }
  return plan;
}

export const uidKeyOf = (email: string, userId: string | null | undefined): string => (userId ? `uid:${userId}` : `email:${email}`);
