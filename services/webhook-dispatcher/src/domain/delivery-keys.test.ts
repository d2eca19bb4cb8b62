import { deliveryIdOf, personList, personListsOf } from './delivery-keys';

describe('delivery keys', () => {
  it('one event to one endpoint always has the same delivery id, and another endpoint another', () => {
    expect(deliveryIdOf('evt_1', 'we_1')).toBe(deliveryIdOf('evt_1', 'we_1'));
    expect(deliveryIdOf('evt_1', 'we_1')).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(deliveryIdOf('evt_1', 'we_2')).not.toBe(deliveryIdOf('evt_1', 'we_1'));
    expect(deliveryIdOf('evt_2', 'we_1')).not.toBe(deliveryIdOf('evt_1', 'we_1'));
  });

  it("a person's list name holds no address, and differs per project and per kind of name", () => {
    const list = personList('p1', { kind: 'email', value: 'ann@example.com' });
    expect(list).toMatch(/^person:[0-9a-f]{40}$/);
    expect(list).not.toContain('ann');
    expect(personList('p2', { kind: 'email', value: 'ann@example.com' })).not.toBe(list);
    expect(personList('p1', { kind: 'user_id', value: 'ann@example.com' })).not.toBe(list);
  });

  it('reads the people a body names from its data', () => {
    const payload = JSON.stringify({ type: 't', timestamp: 'x', data: { project_id: 'p1', email: 'ann@example.com', user_id: 'u1' } });
    expect(personListsOf({ payload })).toEqual([
      personList('p1', { kind: 'email', value: 'ann@example.com' }),
      personList('p1', { kind: 'user_id', value: 'u1' }),
    ]);
    expect(personListsOf({ payload: JSON.stringify({ data: { email: 'ann@example.com' } }) })).toEqual([]); // no project
  });
});
