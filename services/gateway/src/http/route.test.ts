import { scopeAllows } from './route';

describe('which keys may call a route (scopeAllows)', () => {
  const management = { scope: 'full' as const };
  const dataPlane = { scope: 'sdk' as const };
  const send = { scope: 'sdk' as const, testKeysMayCall: true as const };
  const messageRead = { scope: 'full' as const, testKeysMayCall: true as const };

  it('lets a full key call everything', () => {
    for (const route of [management, dataPlane, send, messageRead]) expect(scopeAllows(route, 'full')).toBe(true);
  });

  it('lets an sdk key call the data-plane routes only', () => {
    expect([management, dataPlane, send, messageRead].map((route) => scopeAllows(route, 'sdk'))).toEqual([false, true, true, false]);
  });

  it('lets a test key call only the routes open to it: the sends and the message reads', () => {
    expect([management, dataPlane, send, messageRead].map((route) => scopeAllows(route, 'test'))).toEqual([false, false, true, true]);
  });
});
