import { NotYetKnownError, type Publisher } from '@postbus/bus';
import type { PaymentRecordCommand } from '@postbus/contracts';
import type { KnownUser } from '@postbus/db';
import { createLogger } from '@postbus/logger';
import { messageContext } from '@postbus/testing/fakes';
import { PaymentCommands } from './payment-commands';
import type { KnownUserLookup, NewPayment, PaymentCommandStore } from './ports';
import type { PaymentRecord } from './records';

const logger = createLogger({ service: 'payments-test', level: 'error' });

const ann: KnownUser = { _id: 'p1:email:ann@example.com', projectId: 'p1', id: 'uid-ann', email: 'ann@example.com', userId: 'u-ann' };

function setup(known: KnownUser[] = [ann]) {
  const stored = new Map<string, PaymentRecord>();
  const recorded: [string, string][] = [];
  const published: { type: string; key: string; data: Record<string, unknown>; id: string }[] = [];
  const payments: PaymentCommandStore = {
    insert: (p: NewPayment, now: Date) => {
      const id = `${p.projectId}:${p.paymentId}`;
      if (stored.has(id)) return Promise.resolve('duplicate');
      const doc: PaymentRecord = { ...p, _id: id, day: p.paidAt.toISOString().slice(0, 10), recordedAt: now, rolledUp: false };
      stored.set(id, doc);
      return Promise.resolve(doc);
    },
    byId: (projectId, paymentId) => Promise.resolve(stored.get(`${projectId}:${paymentId}`) ?? null),
    recorded: (p, seen) => {
      recorded.push([p.paymentId, seen]);
      return Promise.resolve();
    },
  };
  const users: KnownUserLookup = {
    find: (projectId, name) =>
      Promise.resolve(
        known.find((u) => u.projectId === projectId && (u.email === name.email || (!!name.userId && u.userId === name.userId))) ?? null,
      ),
  };
  const publisher = {
    publish: (_topic: string, type: string, key: string, data: Record<string, unknown>, opts: { id: string }) => {
      published.push({ type, key, data, id: opts.id });
      return Promise.resolve(opts.id);
    },
  } as unknown as Publisher;
  let now = new Date('2026-01-01T00:00:10Z');
  const commands = new PaymentCommands({ payments, users, publisher, logger, userWaitMs: 60_000, now: () => now });
  return { commands, stored, recorded, published, setNow: (d: string) => (now = new Date(d)) };
}

const payment = (over: Partial<PaymentRecordCommand> = {}): PaymentRecordCommand => ({
  projectId: 'p1',
  user: { userId: 'u-ann' },
  paymentId: 'pay_1',
  amount: 1200,
  currency: 'EUR',
  paidAt: '2026-01-01T00:00:00.000Z',
  acceptedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('PaymentCommands.record', () => {
  it('records the payment under the user as the users service knows them, then announces it', async () => {
    const { commands, stored, recorded, published } = setup();
    await commands.record(payment(), messageContext('c1'));
    expect(stored.get('p1:pay_1')).toMatchObject({
      email: 'ann@example.com',
      userId: 'u-ann',
      uid: 'uid-ann',
      commandId: 'c1',
      description: null,
    });
    expect(recorded).toEqual([['pay_1', 'new']]);
    expect(published).toEqual([
      {
        type: 'payment.recorded',
        key: 'p1:uid:u-ann',
        id: 'c1:result',
        data: {
          projectId: 'p1',
          paymentId: 'pay_1',
          email: 'ann@example.com',
          userId: 'u-ann',
          amount: 1200,
          currency: 'EUR',
          paidAt: '2026-01-01T00:00:00.000Z',
        },
      },
    ]);
  });

  it('records a repeated payment_id once: another command with it announces nothing', async () => {
    const { commands, published, recorded } = setup();
    await commands.record(payment(), messageContext('c1'));
    await commands.record(payment({ amount: 5 }), messageContext('c2'));
    expect(published.map((p) => p.id)).toEqual(['c1:result']);
    expect(recorded).toEqual([['pay_1', 'new']]);
  });

  it('the command that stored the payment, redelivered, completes and announces it again', async () => {
    const { commands, published, recorded } = setup();
    await commands.record(payment(), messageContext('c1'));
    await commands.record(payment(), messageContext('c1'));
    expect(published.map((p) => p.id)).toEqual(['c1:result', 'c1:result']);
    expect(recorded).toEqual([
      ['pay_1', 'new'],
      ['pay_1', 'maybe-seen'],
    ]);
  });

  it('waits for a user not known yet, then rejects the payment once the wait is over', async () => {
    const { commands, published, stored, setNow } = setup([]);
    await expect(commands.record(payment(), messageContext('c1'))).rejects.toBeInstanceOf(NotYetKnownError);
    setNow('2026-01-01T00:01:00.001Z');
    await commands.record(payment(), messageContext('c1'));
    expect(stored.size).toBe(0);
    expect(published).toEqual([
      expect.objectContaining({
        type: 'payment.rejected',
        id: 'c1:result',
        data: expect.objectContaining({ reason: 'user_not_found', commandId: 'c1' }),
      }),
    ]);
  });
});
