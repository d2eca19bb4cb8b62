import { MessageStore } from './message.repository';

const incoming = (subject: string) => ({
  raw: Buffer.from(`Subject: ${subject}\r\n\r\nbody`),
  mailFrom: 'a@example.com',
  rcptTo: ['b@example.com'],
});
const subjects = (messages: { headers: { subject: string } }[]) => messages.map((m) => m.headers.subject);

describe('MessageStore', () => {
  it('when messages arrive, then pages list them newest first and count every match', () => {
    const store = new MessageStore(10);
    for (const subject of ['a', 'b', 'c', 'd']) store.add(incoming(subject));
    expect(subjects(store.page(0, 2).messages)).toEqual(['d', 'c']);
    expect(subjects(store.page(3, 2).messages)).toEqual(['a']);
    expect(store.page(9, 2).messages).toEqual([]);
    const filtered = store.page(1, 5, (m) => m.headers.subject !== 'c');
    expect(subjects(filtered.messages)).toEqual(['b', 'a']);
    expect(filtered.matched).toBe(3);
  });

  it('when the limit is passed, then the oldest are dropped, also across compactions', () => {
    const store = new MessageStore(3);
    const ids = Array.from({ length: 3000 }, (_, i) => store.add(incoming(String(i))).id);
    expect(store.size).toBe(3);
    expect(subjects(store.page(0, 10).messages)).toEqual(['2999', '2998', '2997']);
    expect(store.get(ids[0]!)).toBeUndefined();
    expect(store.latest()?.headers.subject).toBe('2999');
    expect(store.unreadCount).toBe(3);
  });

  it('when messages are read and deleted, then the unread count follows', () => {
    const store = new MessageStore(10);
    const [a, b, c] = ['a', 'b', 'c'].map((s) => store.add(incoming(s)));
    store.markRead(a!);
    store.markRead(a!);
    expect(store.unreadCount).toBe(2);
    expect(store.delete([a!.id, b!.id, 'unknown'])).toBe(2);
    expect(store.unreadCount).toBe(1);
    expect(subjects(store.page(0, 10).messages)).toEqual(['c']);
    expect(store.latest()).toBe(c);
    store.clear();
    expect(store.size).toBe(0);
    expect(store.latest()).toBeUndefined();
  });
});
