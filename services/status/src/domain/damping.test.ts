import type { ComponentStatus } from './model';
import { applyCheck, initialDamping, type DampedState } from './damping';

const rule = { failuresToChange: 3, successesToRecover: 2 };
const run = (start: DampedState, checks: ComponentStatus[]) => checks.reduce((state, check) => applyCheck(state, check, rule), start);

describe('damping', () => {
  it('when a component has no verdict yet, the first check sets it at once', () => {
    expect(run(initialDamping(), ['major_outage']).status).toBe('major_outage');
  });

  it('when an operational component fails twice, it stays operational; the third failure in a row changes it', () => {
    const up = initialDamping('operational');
    expect(run(up, ['major_outage', 'major_outage']).status).toBe('operational');
    expect(run(up, ['major_outage', 'major_outage', 'major_outage']).status).toBe('major_outage');
  });

  it('when a failing component has one good check it stays failing; two in a row bring it back', () => {
    const down = initialDamping('major_outage');
    expect(run(down, ['operational']).status).toBe('major_outage');
    expect(run(down, ['operational', 'operational']).status).toBe('operational');
  });

  it('when a probe flaps between good and bad, the component never changes', () => {
    const checks: ComponentStatus[] = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 'major_outage' : 'operational'));
    expect(run(initialDamping('operational'), checks).status).toBe('operational');
    const flappingWhileDown: ComponentStatus[] = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 'operational' : 'major_outage'));
    expect(run(initialDamping('major_outage'), flappingWhileDown).status).toBe('major_outage');
  });

  it('when the bad checks differ in severity, the component takes the latest after three in a row', () => {
    expect(run(initialDamping('operational'), ['degraded_performance', 'major_outage', 'partial_outage']).status).toBe('partial_outage');
  });

  it('with other thresholds, they are honoured', () => {
    const strict = { failuresToChange: 5, successesToRecover: 4 };
    let state = initialDamping('operational');
    for (let i = 0; i < 4; i++) state = applyCheck(state, 'major_outage', strict);
    expect(state.status).toBe('operational');
    state = applyCheck(state, 'major_outage', strict);
    expect(state.status).toBe('major_outage');
  });
});
