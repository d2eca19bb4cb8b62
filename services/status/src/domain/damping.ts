import type { ComponentStatus, ObservedStatus } from './model';

export interface DampingRule {
  /** Bad checks in a row before a component leaves its status. */
  failuresToChange: number;
  /** Good checks in a row before a failing component is operational again. */
  successesToRecover: number;
}

/** Where one component stands between checks: its damped status and the current streaks. */
export interface DampedState {
  status: ObservedStatus;
  badStreak: number;
  goodStreak: number;
}

export const initialDamping = (status: ObservedStatus = 'unknown'): DampedState => ({ status, badStreak: 0, goodStreak: 0 });

/**
 * Applies one check to a component's damped state. A component changes only after
 * `failuresToChange` bad checks in a row (to the latest one's status) or `successesToRecover`
 * good ones, so a flapping probe never moves it. A component without a verdict yet (unknown:
 * new, or its probe had gone quiet) takes the first check's status at once: there is nothing to damp.
 */
export function applyCheck(state: DampedState, check: ComponentStatus, rule: DampingRule): DampedState {
  if (state.status === 'unknown') return initialDamping(check);
  if (check === state.status) return initialDamping(state.status);
  if (check === 'operational') {
    const goodStreak = state.goodStreak + 1;
    return goodStreak >= rule.successesToRecover ? initialDamping('operational') : { status: state.status, badStreak: 0, goodStreak };
  }
  const badStreak = state.badStreak + 1;
  return badStreak >= rule.failuresToChange ? initialDamping(check) : { status: state.status, badStreak, goodStreak: 0 };
}
