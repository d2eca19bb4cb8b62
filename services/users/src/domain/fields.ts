import { isDeepStrictEqual } from 'node:util';
import { STANDARD_ATTRIBUTE_NAMES, type StandardAttributeName, type UserRef } from '@postbus/contracts';

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

/** `email:<email>` or `uid:<user_id>`: how parked commands name the user they wait for. */
export const refKey = (ref: UserRef): string => (ref.email !== undefined ? `email:${ref.email}` : `uid:${ref.userId ?? ''}`);

export const uidKeyOf = (email: string, userId: string | null | undefined): string => (userId ? `uid:${userId}` : `email:${email}`);

/** What a user holds now, as far as `fields` can name it: user_id, the standard attributes and the custom fields. */
export type CurrentFields = Partial<Record<StandardAttributeName, unknown>> & { userId: string | null; fields: Record<string, unknown> };

/**
 * The fields that would change the user: those equal to what the user holds already are left out
 * (a removal of what is absent included). Every trigger for a known user carries what it knows of
 * the user; nearly always that is what is stored, and then nothing is written and no event goes.
 */
export function fieldsThatChange(current: CurrentFields, fields: Record<string, unknown>): Record<string, unknown> {
  const changing: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    const held = name === 'user_id' ? current.userId : isStandard(name) ? (current[name] ?? null) : (current.fields[name] ?? null);
    if (!isDeepStrictEqual(held, value ?? null)) changing[name] = value;
  }
  return changing;
}
