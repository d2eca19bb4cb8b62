import {
  MESSAGE_WEBHOOK_EVENTS,
  SUPPRESSION_REASONS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_FORMATS,
  webhookTestBody,
  type MessageWebhookEvent,
  type SuppressionReason,
  type WebhookBody,
} from '@postbus/contracts';
import { postmarkBody } from './postmark-format';
import { resendBody } from './resend-format';
import { bodyIn, eventsWithoutCounterpart, signatureHeadersOf } from './webhook-formats';
import {
  messageEvent,
  suppressionChanged,
  userErased,
  userErasureScheduled,
  userUnsubscribed,
  userUpdateRejected,
  type WebhookEvent,
} from './webhook-payloads';

/** Accepted at 2026-01-01T00:00:00.000Z (the id's first 12 hex digits are its milliseconds). */
const MESSAGE_ID = `msg_${Date.parse('2026-01-01T00:00:00.000Z').toString(16).padStart(12, '0')}${'ab'.repeat(10)}`;
const AT = '2026-01-01T00:00:05.000Z';

const message = (
  event: MessageWebhookEvent,
  over: Partial<Parameters<typeof messageEvent>[1]> = {},
): WebhookEvent & WebhookBody<`message.${MessageWebhookEvent}`> =>
  messageEvent(`message.${event}`, {
    messageId: MESSAGE_ID,
    projectId: 'p1',
    emailKey: 'welcome',
    email: 'ann@example.org',
    userId: 'u1',
    event,
    sequence: 2,
    at: AT,
    tags: ['onboarding', 'second'],
    metadata: { order: '4711' },
    ...over,
  }) as WebhookEvent & WebhookBody<`message.${MessageWebhookEvent}`>;

const suppression = (
  type: 'suppression.created' | 'suppression.deleted',
  reason: SuppressionReason,
  messageId: string | null = MESSAGE_ID,
) =>
  suppressionChanged(type, {
    projectId: 'p1',
    email: 'ann@example.org',
    reason,
    createdAt: '2026-01-01T00:01:00.000Z',
    messageId,
    ...(type === 'suppression.deleted' ? { deletedAt: '2026-01-02T00:00:00.000Z' } : {}),
  });

/** One body of every event type an endpoint subscribes to. */
const oneOfEach: Record<(typeof WEBHOOK_EVENT_TYPES)[number], WebhookEvent> = {
  ...(Object.fromEntries(MESSAGE_WEBHOOK_EVENTS.map((e) => [`message.${e}`, message(e)])) as Record<
    `message.${MessageWebhookEvent}`,
    WebhookEvent
  >),
  'suppression.created': suppression('suppression.created', 'hard_bounce'),
  'suppression.deleted': suppression('suppression.deleted', 'manual'),
  'user.unsubscribed': userUnsubscribed({
    projectId: 'p1',
    id: 'x',
    userId: 'u1',
    email: 'ann@example.org',
    reason: null,
    unsubscribedAt: AT,
  }),
  'user.update_rejected': userUpdateRejected(
    { projectId: 'p1', user: { userId: 'u1' }, command: 'user.update', commandId: 'c1', reason: 'user_not_found' },
    AT,
  ),
  'user.erasure_scheduled': userErasureScheduled({
    erasureId: 'era_1',
    projectId: 'p1',
    id: null,
    email: 'ann@example.org',
    userId: null,
    requestedAt: AT,
    eraseAt: AT,
  }),
  'user.erased': userErased({ erasureId: 'era_1', projectId: 'p1', requestedAt: AT, eraseAt: AT, completedAt: AT }),
};

describe('the resend format', () => {
  it("a relay's 250 is Resend's email.delivered: the message id, its accept time, the recipient in `to`, the email as template_id, the metadata as tags", () => {
    expect(resendBody(message('sent', { smtp: { code: 250, response: '250 2.0.0 OK' } }))).toEqual({
      type: 'email.delivered',
      created_at: AT,
      data: {
        email_id: MESSAGE_ID,
        created_at: '2026-01-01T00:00:00.000Z',
        to: ['ann@example.org'],
        template_id: 'welcome',
        tags: { order: '4711' },
      },
    });
  });

  it('names each message event as Resend does: queued is its sent, deferred its delivery_delayed', () => {
    const typeOf = (event: MessageWebhookEvent) => resendBody(message(event))?.type ?? null;
    expect(Object.fromEntries(MESSAGE_WEBHOOK_EVENTS.map((e) => [e, typeOf(e)]))).toEqual({
      scheduled: 'email.scheduled',
      queued: 'email.sent',
      sent: 'email.delivered',
      deferred: 'email.delivery_delayed',
      bounced: 'email.bounced',
      failed: 'email.failed',
      suppressed: 'email.suppressed',
      opened: 'email.opened',
      clicked: 'email.clicked',
      complained: 'email.complained',
      canceled: null,
    });
  });

  it('a bounce, a failure, a suppression and a click carry their own object, with what Postbus knows of them', () => {
    const data = (body: ReturnType<typeof resendBody>) => body?.data as unknown as Record<string, unknown>;
    expect(data(resendBody(message('bounced', { smtp: { code: 550, response: '550 5.1.1 no such user' } })))['bounce']).toEqual({
      message: '550 5.1.1 no such user',
      type: 'Permanent',
      subType: 'General',
    });
    expect(data(resendBody(message('bounced', { reason: 'reported: mailbox unknown' })))['bounce']).toMatchObject({
      message: 'reported: mailbox unknown',
    });
    expect(data(resendBody(message('failed', { reason: 'retries exhausted after 10 attempts' })))['failed']).toEqual({
      reason: 'retries exhausted after 10 attempts',
    });
    expect(data(resendBody(message('suppressed', { reason: 'unsubscribed' })))['suppressed']).toEqual({
      message: 'unsubscribed',
      type: 'OnAccountSuppressionList',
    });
    expect(data(resendBody(message('clicked', { url: 'https://example.com/a' })))['click']).toEqual({
      link: 'https://example.com/a',
      timestamp: AT,
    });
    expect(data(resendBody(message('opened')))).not.toHaveProperty('click');
  });

  it('leaves out what Postbus does not have: no from, subject or RFC message_id; no template_id for a content send, no tags without metadata', () => {
    const data = resendBody(message('sent', { emailKey: null, metadata: {} }))!.data;
    expect(Object.keys(data).sort()).toEqual(['created_at', 'email_id', 'to']);
  });

  it("a message id that does not tell its accept time leaves the event's time as the email's", () => {
    expect(resendBody(message('sent', { messageId: 'msg_1' }))!.data).toMatchObject({ email_id: 'msg_1', created_at: AT });
  });

  it("the suppression list's changes are Resend's suppression.added and .removed, an unsubscribe being none of Resend's", () => {
    expect(resendBody(suppression('suppression.created', 'hard_bounce'))).toEqual({
      type: 'suppression.added',
      created_at: '2026-01-01T00:01:00.000Z',
      data: { email: 'ann@example.org', origin: 'bounce', source_id: MESSAGE_ID, created_at: '2026-01-01T00:01:00.000Z' },
    });
    expect(resendBody(suppression('suppression.created', 'complaint'))?.data).toMatchObject({ origin: 'complaint' });
    expect(resendBody(suppression('suppression.deleted', 'manual', null))).toMatchObject({
      type: 'suppression.removed',
      created_at: '2026-01-02T00:00:00.000Z',
      data: { origin: 'manual', source_id: null },
    });
    expect(resendBody(suppression('suppression.created', 'unsubscribed'))).toBeNull();
  });

  it('sends no user event, and the test event in its own envelope', () => {
    for (const type of ['user.unsubscribed', 'user.update_rejected', 'user.erasure_scheduled', 'user.erased'] as const)
      expect(resendBody(oneOfEach[type])).toBeNull();
    expect(resendBody(webhookTestBody('we_1', new Date(AT)))).toEqual({
      type: 'webhook.test',
      created_at: AT,
      data: { webhook_id: 'we_1' },
    });
  });
});

describe('the postmark format', () => {
  it("a relay's 250 is a Delivery record: the message id, the recipient, the first tag, the metadata, the relay's answer", () => {
    expect(postmarkBody(message('sent', { smtp: { code: 250, response: '250 2.0.0 OK' } }))).toEqual({
      RecordType: 'Delivery',
      MessageStream: 'outbound',
      MessageID: MESSAGE_ID,
      Tag: 'onboarding',
      Metadata: { order: '4711' },
      Recipient: 'ann@example.org',
      DeliveredAt: AT,
      Details: '250 2.0.0 OK',
    });
  });

  it('a hard bounce is a Bounce record of type HardBounce, the address made inactive', () => {
    expect(postmarkBody(message('bounced', { tags: [], smtp: { code: 550, response: '550 5.1.1 no such user' } }))).toEqual({
      RecordType: 'Bounce',
      MessageStream: 'outbound',
      MessageID: MESSAGE_ID,
      Tag: '',
      Metadata: { order: '4711' },
      ID: 0,
      Type: 'HardBounce',
      TypeCode: 1,
      Name: 'Hard bounce',
      Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
      Details: '550 5.1.1 no such user',
      Email: 'ann@example.org',
      BouncedAt: AT,
      DumpAvailable: false,
      Inactive: true,
      CanActivate: true,
    });
  });

  it('a deferral is a Transient bounce, a failure an Unknown one (neither inactive), a complaint a SpamComplaint record that cannot be reactivated', () => {
    const fields = (event: MessageWebhookEvent) => {
      const body = postmarkBody(message(event, { reason: `why ${event}` }))!;
      return [body.RecordType, body['Type'], body['TypeCode'], body['Inactive'], body['CanActivate'], body['Details']];
    };
    expect(fields('deferred')).toEqual(['Bounce', 'Transient', 2, false, true, 'why deferred']);
    expect(fields('failed')).toEqual(['Bounce', 'Unknown', 2048, false, true, 'why failed']);
    expect(fields('complained')).toEqual(['SpamComplaint', 'SpamComplaint', 100001, true, false, 'why complained']);
  });

  it('an open is an Open record (always the first: Postbus reports no other), a click a Click record with the link', () => {
    expect(postmarkBody(message('opened'))).toEqual({
      RecordType: 'Open',
      MessageStream: 'outbound',
      MessageID: MESSAGE_ID,
      Tag: 'onboarding',
      Metadata: { order: '4711' },
      Recipient: 'ann@example.org',
      ReceivedAt: AT,
      FirstOpen: true,
    });
    expect(postmarkBody(message('clicked', { url: 'https://example.com/a' }))).toMatchObject({
      RecordType: 'Click',
      OriginalLink: 'https://example.com/a',
      ReceivedAt: AT,
      Recipient: 'ann@example.org',
    });
  });

  it('has no record for a message scheduled, queued, suppressed or cancelled, nor for the user events', () => {
    for (const event of ['scheduled', 'queued', 'suppressed', 'canceled'] as const) expect(postmarkBody(message(event))).toBeNull();
    for (const type of ['user.unsubscribed', 'user.update_rejected', 'user.erasure_scheduled', 'user.erased'] as const)
      expect(postmarkBody(oneOfEach[type])).toBeNull();
  });

  it("the suppression list's changes are SubscriptionChange records, with Postmark's three reasons and who made the change", () => {
    const change = (reason: SuppressionReason) => {
      const body = postmarkBody(suppression('suppression.created', reason))!;
      return [body['SuppressionReason'], body['Origin']];
    };
    expect(Object.fromEntries(SUPPRESSION_REASONS.map((reason) => [reason, change(reason)]))).toEqual({
      hard_bounce: ['HardBounce', 'Recipient'],
      soft_bounce_limit: ['HardBounce', 'Recipient'],
      complaint: ['SpamComplaint', 'Recipient'],
      unsubscribed: ['ManualSuppression', 'Recipient'],
      manual: ['ManualSuppression', 'Customer'],
    });
    expect(postmarkBody(suppression('suppression.created', 'hard_bounce'))).toEqual({
      RecordType: 'SubscriptionChange',
      MessageStream: 'outbound',
      MessageID: MESSAGE_ID,
      ChangedAt: '2026-01-01T00:01:00.000Z',
      Recipient: 'ann@example.org',
      Origin: 'Recipient',
      SuppressSending: true,
      SuppressionReason: 'HardBounce',
      Tag: null,
      Metadata: {},
    });
    expect(postmarkBody(suppression('suppression.deleted', 'hard_bounce', null))).toMatchObject({
      MessageID: null,
      ChangedAt: '2026-01-02T00:00:00.000Z',
      Origin: 'Customer',
      SuppressSending: false,
      SuppressionReason: null,
    });
  });
});

describe('formats', () => {
  it('the standard format is the Postbus body, byte for byte', () => {
    const event = message('sent');
    expect(bodyIn('standard', event)).toBe(JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data }));
  });

  it('an event type is refused for an endpoint exactly when its format writes nothing for it', () => {
    for (const format of WEBHOOK_FORMATS) {
      for (const [type, event] of Object.entries(oneOfEach)) {
        const refused = eventsWithoutCounterpart(format, [type]).length > 0;
        expect({ format, type, written: bodyIn(format, event) !== null }).toEqual({ format, type, written: !refused });
      }
      expect(eventsWithoutCounterpart(format, ['*'])).toEqual([]);
    }
    expect(eventsWithoutCounterpart('postmark', ['message.sent', 'message.queued', 'user.unsubscribed'])).toEqual([
      'message.queued',
      'user.unsubscribed',
    ]);
  });

  it('every format writes the test event, and only resend signs with Svix headers', () => {
    for (const format of WEBHOOK_FORMATS) expect(bodyIn(format, webhookTestBody('we_1', new Date(AT)))).toContain('we_1');
    expect(WEBHOOK_FORMATS.map(signatureHeadersOf)).toEqual(['standard-webhooks', 'svix', 'standard-webhooks']);
  });

  it('the bodies in the other formats name neither the project nor the user id', () => {
    for (const format of ['resend', 'postmark'] as const) {
      const body = bodyIn(format, message('sent'))!;
      expect(body).not.toContain('p1');
      expect(body).not.toContain('u1');
    }
  });
});
