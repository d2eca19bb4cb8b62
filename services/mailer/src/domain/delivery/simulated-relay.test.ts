import type { MessageDoc } from '../message-records';
import { simulatedBehaviour, simulatedDelivery, simulateFeedback } from './simulated-relay';

describe('simulatedBehaviour', () => {
  it('reads the tag at the end of the local part, in any case; anything else is delivered', () => {
    expect(simulatedBehaviour('b+bounce@example.org')).toBe('bounce');
    expect(simulatedBehaviour('C+Complaint@example.org')).toBe('complaint');
    expect(simulatedBehaviour('d+defer@example.org')).toBe('defer');
    expect(simulatedBehaviour('a@example.org')).toBe('deliver');
    expect(simulatedBehaviour('bounce@example.org')).toBe('deliver');
    expect(simulatedBehaviour('x+bounce+later@example.org')).toBe('deliver');
    expect(simulatedBehaviour('x+bouncer@example.org')).toBe('deliver');
    // The domain is no part of it.
    expect(simulatedBehaviour('a@x+bounce')).toBe('deliver');
  });
});

describe('simulatedDelivery', () => {
  it('bounces +bounce with a 5xx on every attempt', () => {
    expect(simulatedDelivery('b+bounce@example.org', 1)).toMatchObject({ status: 'bounced', code: 550 });
    expect(simulatedDelivery('b+bounce@example.org', 2)).toMatchObject({ status: 'bounced', code: 550 });
  });

  it('defers +defer with a 4xx on its first attempt and takes it on the next', () => {
    expect(simulatedDelivery('d+defer@example.org', 1)).toMatchObject({ status: 'deferred', code: 451 });
    expect(simulatedDelivery('d+defer@example.org', 2)).toMatchObject({ status: 'sent', code: 250 });
  });

  it('takes anything else, +complaint included, with a 250 saying nothing was delivered', () => {
    for (const address of ['a@example.org', 'c+complaint@example.org']) {
      const outcome = simulatedDelivery(address, 1);
      expect(outcome).toMatchObject({ status: 'sent', code: 250 });
      expect(outcome.response).toMatch(/^250 .*nothing was delivered/);
    }
  });
});

describe('simulateFeedback', () => {
  const message = (email: string, test: boolean) => ({ _id: 'msg_1', email, ...(test ? { test: true } : {}) }) as MessageDoc;
  const recorder = () => {
    const entries: string[] = [];
    const timeline = {
      recordEngagement: (m: MessageDoc, event: string) => {
        entries.push(`${m._id} ${event}`);
        return Promise.resolve(true);
      },
    };
    return { entries, timeline };
  };

  it('records a complaint after a +complaint test message is sent, and only then', async () => {
    const { entries, timeline } = recorder();
    await simulateFeedback(message('c+complaint@example.org', true), { event: 'sent' }, [], timeline);
    await simulateFeedback(message('c+complaint@example.org', true), { event: 'deferred' }, [], timeline);
    await simulateFeedback(message('c+complaint@example.org', false), { event: 'sent' }, [], timeline);
    await simulateFeedback(message('a@example.org', true), { event: 'sent' }, [], timeline);
    await simulateFeedback(message('c+complaint@example.org', true), { event: 'sent' }, [{ event: 'complained' }], timeline);
    expect(entries).toEqual(['msg_1 complained']);
  });
});
