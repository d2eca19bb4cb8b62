import type { MessageType } from './messages';
import { MessageTopics, Topics, type TopicOf } from './topics';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE } from './values';
import { messageWebhook, serialiseWebhookBody, WebhookBodySchemas } from './webhook-events';

const at = '2026-01-02T03:04:05.000Z';

describe('webhook bodies', () => {
  it('have a schema for every event type an endpoint subscribes to, and the test event', () => {
    expect(Object.keys(WebhookBodySchemas).sort()).toEqual([...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE].sort());
  });

  it('are sent as {"type", "timestamp", "data"}, without undefined fields', () => {
    const body = messageWebhook('message.sent', {
      messageId: 'msg_1',
      projectId: 'p1',
      emailKey: 'welcome',
      email: 'a@example.com',
      userId: 'u1',
      event: 'sent',
      sequence: 3,
      at,
    });
    expect(serialiseWebhookBody(body)).toBe(
      `{"type":"message.sent","timestamp":"${at}","data":{"message_id":"msg_1","project_id":"p1","email_key":"welcome","email":"a@example.com","user_id":"u1","event":"sent","sequence":3,"tags":[],"metadata":{},"test":false}}`,
    );
  });

  it("carry the send's tags and metadata", () => {
    const body = messageWebhook('message.bounced', {
      messageId: 'msg_1',
      projectId: 'p1',
      emailKey: 'receipt',
      email: 'a@example.com',
      userId: null,
      event: 'bounced',
      sequence: 3,
      at,
      tags: ['receipt'],
      metadata: { order_id: 'ord_4711' },
    });
    expect(body.data).toMatchObject({ tags: ['receipt'], metadata: { order_id: 'ord_4711' } });
  });

  it('say whether the message was sent with a test key', () => {
    const event = { messageId: 'msg_1', projectId: 'p1', emailKey: 'welcome', email: 'a@example.com', userId: null, sequence: 2, at };
    expect(messageWebhook('message.sent', { ...event, event: 'sent', test: true }).data.test).toBe(true);
    expect(messageWebhook('message.sent', { ...event, event: 'sent' }).data.test).toBe(false);
  });
});

describe('TopicOf', () => {
  it('names one topic for every message type', () => {
    const sample: MessageType[] = ['user.create', 'message.sent', 'erasure.execute', 'gateway.usage'];
    for (const type of sample) expect(Object.values(Topics)).toContain(MessageTopics[type]);
  });

  it('does not type-check a type on another topic', () => {
    const onTopic = <T extends MessageType>(topic: NoInfer<TopicOf<T>>, type: T): string => `${type}@${topic}`;
    expect(onTopic(Topics.EmailEvents, 'message.sent')).toBe('message.sent@postbus.email.events.v1');
    // @ts-expect-error: message.sent travels on the email events, not the user commands (checked by `npm run typecheck`).
    expect(onTopic(Topics.UserCommands, 'message.sent')).toBe('message.sent@postbus.users.commands.v1');
  });
});
