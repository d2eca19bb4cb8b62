import { activeMaintenance, buildSnapshot, FakeStatusSource, openIncident, PREVIEW_NOW } from '../../preview/scenarios';
import { InMemorySubscriberStore } from '../../preview/in-memory-subscriber-store';
import type { Subscriber } from './ports';
import type { NotificationMail } from './notification-mail';
import type { NotificationContent } from './notification-outbox';
import { notificationSenders, Notifier, type LastRead, type StatusMail, type SubscriberRef } from './notifier';

const BASE = 'https://status.example.com';

class FakeOutbox {
  readonly queued: Array<{ subscriberId: string; content: NotificationContent }> = [];
  stopped = false;
  resume = () => Promise.resolve();
  enqueue(subscriberId: string, content: NotificationContent): Promise<void> {
    this.queued.push({ subscriberId, content });
    return Promise.resolve();
  }
  stop(): Promise<void> {
    this.stopped = true;
    return Promise.resolve();
  }
}

class FakeMailer implements StatusMail {
  readonly confirmations: string[] = [];
  readonly sent: Array<{ to: string; mail: NotificationMail }> = [];
  closed = false;
  failConfirmations = false;
  sendConfirmation(to: string): Promise<void> {
    this.confirmations.push(to);
    return this.failConfirmations ? Promise.reject(Object.assign(new Error('relay down'), { code: 'ECONNREFUSED' })) : Promise.resolve();
  }
  send(to: string, mail: NotificationMail): Promise<void> {
    this.sent.push({ to, mail });
    return Promise.resolve();
  }
  close(): void {
    this.closed = true;
  }
}

class MemoryLastRead implements LastRead {
  readonly loaded = Promise.resolve();
  refs: SubscriberRef[] | undefined;
  get = () => this.refs;
  remember(subscribers: Subscriber[]): Promise<void> {
    this.refs = subscribers.map(({ id, kind }) => ({ id, kind }));
    return Promise.resolve();
  }
}

/** A store whose reads fail while `down` is set (the database is unreachable). */
class FlakyStore extends InMemorySubscriberStore {
  down = false;
  override listConfirmed(): Promise<Subscriber[]> {
    return this.down ? Promise.reject(new Error('database down')) : super.listConfirmed();
  }
}

async function notifierWith(options: { mailer?: FakeMailer | undefined } = {}) {
  const source = new FakeStatusSource(buildSnapshot({ history: true }));
  const subscribers = new FlakyStore();
  const outbox = new FakeOutbox();
  const lastRead = new MemoryLastRead();
  const mailer = 'mailer' in options ? options.mailer : new FakeMailer();
  const notifier = new Notifier(source, {
    subscribers,
    baseUrl: BASE,
    unsubscribeUrl: (subscriber) => `${BASE}/subscriptions/unsubscribe?token=${subscriber.id}`,
    outbox,
    mailer,
    lastRead,
    lookupRetryMs: 10,
  });
  const confirmed = { confirmedAt: new Date(), secret: null };
  const hook = await subscribers.add(
    { kind: 'webhook', address: 'https://hooks.example.com/', ...confirmed, secret: 'whsec_x' },
    new Date(),
  );
  const reader = await subscribers.add({ kind: 'email', address: 'reader@example.com', ...confirmed }, new Date());
  return { source, subscribers, outbox, lastRead, mailer, notifier, hook, reader };
}

const incidentEvent = () => {
  const incident = openIncident(PREVIEW_NOW);
  return { kind: 'incident' as const, incident, update: incident.updates[0]! };
};

describe('the status notifier', () => {
  it('queues a webhook body and a rendered mail per confirmed subscriber for an incident, in order', async () => {
    const { source, outbox, notifier, hook, reader } = await notifierWith();
    source.emit(incidentEvent());
    const maintenance = activeMaintenance(PREVIEW_NOW);
    source.emit({ kind: 'maintenance', maintenance, update: maintenance.updates[0]! });
    await notifier.idle();
    expect(outbox.queued.map((q) => [q.subscriberId, q.content.kind])).toEqual([
      [hook.id, 'webhook'],
      [reader.id, 'email'],
      [hook.id, 'webhook'],
      [reader.id, 'email'],
    ]);
    const body = JSON.parse((outbox.queued[0]!.content as { body: string }).body) as {
      incident: { id: string };
      meta: { unsubscribe: string };
    };
    expect(body.incident.id).toBe('inc-open');
    expect(body.meta.unsubscribe).toBe(`${BASE}/subscriptions/unsubscribe?token=${hook.id}`);
    const mail = (outbox.queued[1]!.content as { mail: NotificationMail }).mail;
    expect(mail.text).toContain(`Details: ${BASE}/incidents/inc-open`);
    expect(mail.unsubscribe).toBe(`${BASE}/subscriptions/unsubscribe?token=${reader.id}`);
    await notifier.stop();
  });

  it('tells email subscribers nothing without a mailer', async () => {
    const { source, outbox, notifier, hook } = await notifierWith({ mailer: undefined });
    expect(notifier.sendsMail).toBe(false);
    source.emit(incidentEvent());
    await notifier.idle();
    expect(outbox.queued.map((q) => q.subscriberId)).toEqual([hook.id]);
    await notifier.stop();
  });

  it('while the database cannot be read, notifies the subscribers last read; with none read yet, waits for it', async () => {
    const { source, subscribers, outbox, notifier, lastRead, hook, reader } = await notifierWith();
    subscribers.down = true;
    source.emit(incidentEvent());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(outbox.queued).toEqual([]); // none read yet: waiting
    subscribers.down = false;
    await notifier.idle();
    expect(outbox.queued.map((q) => q.subscriberId)).toEqual([hook.id, reader.id]);
    expect(lastRead.refs).toEqual([
      { id: hook.id, kind: 'webhook' },
      { id: reader.id, kind: 'email' },
    ]);
    subscribers.down = true;
    source.emit(incidentEvent());
    await notifier.idle();
    expect(outbox.queued).toHaveLength(4);
    await notifier.stop();
  });

  it('sends confirmations in the background (a failure only logged), and stops the outbox and closes the mailer on stop', async () => {
    const mailer = new FakeMailer();
    const { source, notifier, outbox } = await notifierWith({ mailer });
    notifier.sendConfirmation('sub-1', 'ada@example.com', `${BASE}/subscriptions/confirm?token=t`);
    mailer.failConfirmations = true;
    notifier.sendConfirmation('sub-2', 'bob@example.com', `${BASE}/subscriptions/confirm?token=u`);
    await notifier.idle();
    expect(mailer.confirmations).toEqual(['ada@example.com', 'bob@example.com']);
    let before = false;
    await notifier.stop(() => ((before = true), Promise.resolve()));
    expect(before).toBe(true);
    expect(source.listenerCount).toBe(0);
    expect(outbox.stopped).toBe(true);
    expect(mailer.closed).toBe(true);
  });
});

describe('notification senders', () => {
  const subscriber: Subscriber = {
    id: 's',
    kind: 'webhook',
    address: 'https://hooks.example.com/',
    secret: 'whsec_x',
    confirmedAt: new Date(),
    createdAt: new Date(),
  };

  it('a webhook is delivered on 2xx, gone on 410, else failed with its status', async () => {
    const answers = [204, 410, 500, null];
    const senders = notificationSenders(() => Promise.resolve(answers.shift() ?? null), undefined);
    expect(await senders.webhook(subscriber, 'msg_1', '{}')).toBe('delivered');
    expect(await senders.webhook(subscriber, 'msg_1', '{}')).toBe('gone');
    expect(await senders.webhook(subscriber, 'msg_1', '{}')).toEqual({ failed: 500 });
    expect(await senders.webhook(subscriber, 'msg_1', '{}')).toEqual({ failed: null });
  });

  it('a mail goes through the mailer, and fails (to be retried) without one', async () => {
    const mail: NotificationMail = { subject: 's', text: 't', unsubscribe: 'u' };
    const mailer = new FakeMailer();
    const reader = { ...subscriber, kind: 'email' as const, address: 'reader@example.com', secret: null };
    expect(await notificationSenders(() => Promise.resolve(null), mailer).email(reader, mail)).toBe('delivered');
    expect(mailer.sent).toEqual([{ to: 'reader@example.com', mail }]);
    expect(await notificationSenders(() => Promise.resolve(null), undefined).email(reader, mail)).toBe('failed');
  });
});
