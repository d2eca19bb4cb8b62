import { componentDefinitions, impactOf, worstImpact, worstOf } from './components';

describe('components', () => {
  it('maps a status to the impact of the incident it opens', () => {
    expect(impactOf('degraded_performance')).toBe('minor');
    expect(impactOf('partial_outage')).toBe('major');
    expect(impactOf('major_outage')).toBe('critical');
    expect(impactOf('operational')).toBe('none');
    expect(impactOf('under_maintenance')).toBe('none');
  });

  it('orders statuses and impacts by how bad they are', () => {
    expect(worstOf('operational', 'degraded_performance')).toBe('degraded_performance');
    expect(worstOf('major_outage', 'partial_outage')).toBe('major_outage');
    expect(worstOf('operational', 'unknown')).toBe('unknown');
    expect(worstImpact('major', 'minor')).toBe('major');
  });

  it('has every issue group, unique ids, and infrastructure hidden from the public page', () => {
    const definitions = componentDefinitions();
    expect(new Set(definitions.map((d) => d.id)).size).toBe(definitions.length);
    expect(new Set(definitions.map((d) => d.group))).toEqual(
      new Set(['api', 'sending', 'webhooks', 'tracking', 'admin', 'infrastructure']),
    );
    expect(definitions.filter((d) => d.group === 'infrastructure').every((d) => !d.public)).toBe(true);
    expect(definitions.filter((d) => d.group !== 'infrastructure').every((d) => d.public)).toBe(true);
  });
});
