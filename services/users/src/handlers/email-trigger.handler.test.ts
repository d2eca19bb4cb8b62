import { SendPathPriority, type MessageContext } from '@postbus/bus';
import type { EmailTriggerCommand } from '@postbus/contracts';
import type { UserCommands } from '../domain/user-commands';
import { emailTriggerHandler } from './email-trigger.handler';

const trigger = (email: string): EmailTriggerCommand => ({
  messageId: `msg_${email}`,
  projectId: 'p1',
  emailId: 'e1',
  emailKey: 'welcome',
  templateId: 't1',
  templateVersion: 1,
  user: { email },
  data: {},
  acceptedAt: new Date(0).toISOString(),
});
const ctx = (id: string) => ({ id }) as MessageContext;

/** A clock that moves only when waited on, and the users registered, each with the time it was. */
function setUp() {
  let now = 0;
  const registered: { email: string; at: number }[] = [];
  const singles = new SendPathPriority({
    whileSendingPerSecond: 10,
    now: () => now,
    sleep: (ms) => {
      now += ms;
      return Promise.resolve();
    },
  });
  const commands = {
    create: (data: { email?: string }) => {
      registered.push({ email: data.email ?? '', at: now });
      return Promise.resolve();
    },
    createMany: (items: { data: { email?: string } }[]) => {
      for (const { data } of items) registered.push({ email: data.email ?? '', at: now });
      return Promise.resolve([]);
    },
  } as unknown as UserCommands;
  return {
    single: emailTriggerHandler(commands, 'email.trigger', singles),
    bulk: emailTriggerHandler(commands, 'email.bulk_trigger', singles),
    registered,
    /** Single sends being handled until `release` is called. */
    singlesFlowing: () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const handling = singles.delivering(() => held);
      return () => {
        release();
        return handling;
      };
    },
  };
}

describe('implicit registration from triggers', () => {
  it('registers a batch’s users at once while no single send is being handled', async () => {
    const { bulk, registered } = setUp();
    await bulk.handleBatch!(['a@x.example', 'b@x.example'].map((email, i) => ({ data: trigger(email), ctx: ctx(`c${i}`) })));
    expect(registered).toEqual([
      { email: 'a@x.example', at: 0 },
      { email: 'b@x.example', at: 0 },
    ]);
  });

  it('paces a batch’s registrations while single sends are being handled, one message or a run of them', async () => {
    const { bulk, registered, singlesFlowing } = setUp();
    const stop = singlesFlowing();
    await bulk.handleBatch!(Array.from({ length: 5 }, (_, i) => ({ data: trigger(`r${i}@x.example`), ctx: ctx(`c${i}`) })));
    await bulk.handle(trigger('one@x.example'), ctx('c-one'));
    await stop();
    // Ten a second: the run of five goes at once and takes the next half second; the single one waits for it.
    expect(registered.map(({ at }) => at)).toEqual([0, 0, 0, 0, 0, 500]);
  });

  it('never paces a single send’s registration', async () => {
    const { single, bulk, registered, singlesFlowing } = setUp();
    const stop = singlesFlowing();
    await bulk.handleBatch!(Array.from({ length: 20 }, (_, i) => ({ data: trigger(`r${i}@x.example`), ctx: ctx(`c${i}`) })));
    await single.handle(trigger('single@x.example'), ctx('c-single'));
    await stop();
    expect(registered.find(({ email }) => email === 'single@x.example')?.at).toBe(0);
  });
});
