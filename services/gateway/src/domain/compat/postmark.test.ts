import { Errors } from 'postmark';
import type { Message, PostmarkMessage, PostmarkTemplateMessage, SendBatchResult } from '@postbus/contracts';
import { AppError, NotFoundError, ServiceUnavailableError, UnauthorizedError, UnprocessableError, ValidationError } from '@postbus/errors';
import {
  answerPostmarkError,
  contentSendOf,
  outboundDetailsOf,
  postmarkFieldOf,
  PostmarkRefusal,
  senderRefusal,
  sendPostmarkBatch,
  suppressionRefusal,
  templateSendOf,
  type PreparedItem,
} from './postmark';

const isAddress = (address: string) => /^[^@\s<>",]+@[^@\s<>",]+\.[a-z]+$/i.test(address);

/** What a function refused with: its Postmark ErrorCode and Message. */
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PostmarkRefusal);
    return answerPostmarkError(error).body;
  }
  throw new Error('nothing was refused');
};

const message = (fields: Partial<PostmarkMessage> = {}): PostmarkMessage => ({
  From: 'shop@mail.example.com',
  To: 'ada@example.com',
  Subject: 'Your receipt',
  HtmlBody: '<p>Thanks</p>',
  ...fields,
});

describe('a Postmark send as the core’s content send', () => {
  it('maps every field: address lists with display names, headers, attachments, tag, metadata and tracking', () => {
    const send = contentSendOf(
      message({
        From: 'Acme "Billing" <billing@mail.example.com>',
        To: '"Lovelace, Ada" <ada@example.com>, grace@example.com',
        Cc: 'Cy <cy@example.com>',
        Bcc: 'archive@example.com',
        ReplyTo: 'Help Desk <help@mail.example.com>',
        TextBody: 'Thanks',
        Headers: [{ Name: 'X-Order-Id', Value: '4711' }],
        Attachments: [
          { Name: 'invoice.pdf', Content: 'JVBERi0=', ContentType: 'application/pdf', ContentID: null },
          { Name: 'logo.png', Content: 'iVBORw==', ContentType: 'image/png; name=logo.png', ContentID: 'cid:logo' },
        ],
        Tag: 'receipt',
        Metadata: { order: '4711' },
        TrackOpens: true,
        TrackLinks: 'HtmlAndText',
        MessageStream: 'outbound',
      }),
      isAddress,
    );
    expect(send).toEqual({
      to: ['ada@example.com', 'grace@example.com'],
      from: '"Acme Billing" <billing@mail.example.com>',
      subject: 'Your receipt',
      html: '<p>Thanks</p>',
      text: 'Thanks',
      cc: ['cy@example.com'],
      bcc: ['archive@example.com'],
      reply_to: 'help@mail.example.com',
      headers: { 'X-Order-Id': '4711' },
      attachments: [
        { filename: 'invoice.pdf', content: 'JVBERi0=', content_type: 'application/pdf' },
        { filename: 'logo.png', content: 'iVBORw==', content_type: 'image/png', content_id: 'logo' },
      ],
      tags: ['receipt'],
      metadata: { order: '4711' },
      track_opens: true,
      track_clicks: true,
    });
  });

  it('leaves out what postmarker sends as null or empty, and one To is the recipient alone', () => {
    const nulls = { Cc: null, Bcc: null, ReplyTo: null, Tag: null, Metadata: null, TrackOpens: null, MessageStream: null, TextBody: null };
    expect(contentSendOf(message({ ...nulls, Headers: [], Attachments: [], TrackLinks: 'None' }), isAddress)).toEqual({
      to: 'ada@example.com',
      from: 'shop@mail.example.com',
      subject: 'Your receipt',
      html: '<p>Thanks</p>',
      track_clicks: false,
    });
  });

  it.each([
    [{ To: 'ada@example.com, not an address' }, 300, "Invalid 'To' address: 'not an address'."],
    [{ To: '' }, 300, 'Zero recipients specified: To names no address.'],
    [{ Cc: 'cy@' }, 300, "Invalid 'Cc' address: 'cy@'."],
    [{ ReplyTo: 'a@example.com, b@example.com' }, 300, "Invalid 'ReplyTo' address: give one address, not 2."],
    [{ TrackLinks: 'TextOnly' as const }, 300, expect.stringContaining("TrackLinks 'TextOnly' is not offered")],
    [{ MessageStream: 'broadcast' }, 1235, expect.stringContaining("The message stream 'broadcast' does not exist")],
    [
      {
        Headers: [
          { Name: 'X-A', Value: '1' },
          { Name: 'x-a', Value: '2' },
        ],
      },
      300,
      "The header 'x-a' is given twice: a header is given once.",
    ],
  ])('refuses %j with ErrorCode %i', (fields, code, text) => {
    expect(refusal(() => contentSendOf(message(fields), isAddress))).toEqual({ ErrorCode: code, Message: text });
  });
});

describe('a Postmark template send as the core’s template send', () => {
  const template = (fields: Partial<PostmarkTemplateMessage> = {}): PostmarkTemplateMessage => ({
    From: 'Shop <shop@mail.example.com>',
    To: 'Ada <ada@example.com>',
    TemplateAlias: 'welcome',
    TemplateModel: { code: '1234' },
    ...fields,
  });

  it('sends the email TemplateAlias names, TemplateModel its data and To its user; Subject, InlineCss and tracking have no say', () => {
    const sent = templateSendOf(
      template({ Cc: 'cy@example.com', Tag: 'onboarding', Subject: null, InlineCss: true, TrackLinks: 'None', TemplateId: null }),
      isAddress,
    );
    expect(sent).toEqual({
      emailKey: 'welcome',
      from: 'shop@mail.example.com',
      send: { user: { email: 'ada@example.com' }, data: { code: '1234' }, cc: ['cy@example.com'], tags: ['onboarding'] },
    });
  });

  it.each([
    [{ TemplateId: 42 }, expect.stringContaining('TemplateId is not offered')],
    [{ TemplateAlias: null }, "Provide TemplateAlias: the key of one of the project's transactional emails."],
    [{ To: 'ada@example.com, bea@example.com' }, 'A template send goes to one user: To names 2 addresses. Put the others in Cc or Bcc.'],
  ])('refuses %j with ErrorCode 300', (fields, text) => {
    expect(refusal(() => templateSendOf(template(fields), isAddress))).toEqual({ ErrorCode: 300, Message: text });
  });

  it('holds From to the address the email is sent from', () => {
    expect(senderRefusal('welcome', 'Shop@mail.example.com', 'shop@mail.example.com')).toBeUndefined();
    expect(answerPostmarkError(senderRefusal('welcome', 'other@mail.example.com', 'shop@mail.example.com')).body).toEqual({
      ErrorCode: 400,
      Message: expect.stringContaining("From must be shop@mail.example.com: the email 'welcome' is sent from that address"),
    });
    expect(answerPostmarkError(senderRefusal('welcome', 'shop@mail.example.com', null)).body.ErrorCode).toBe(400);
  });
});

describe('a suppressed recipient', () => {
  it('is ErrorCode 406 in the sentence postmark.js reads the inactive addresses from', () => {
    const refused = suppressionRefusal([{ email: 'ada@example.com', reason: 'hard_bounce' }], 'Ada@Example.com', false)!;
    const { status, body } = answerPostmarkError(refused);
    expect(status).toBe(422);
    expect(body.ErrorCode).toBe(406);
    // What the SDK makes of the answer (its ErrorHandler: status 422 with ErrorCode 406).
    const error = new Errors.InactiveRecipientsError(body.Message, body.ErrorCode, status);
    expect(error.recipients).toEqual(['ada@example.com']);
    expect(body.Message).toContain('hard_bounce');
  });

  it('does not hold an unsubscribe against an email sent to the unsubscribed, but every other reason', () => {
    const unsubscribed = [{ email: 'ada@example.com', reason: 'unsubscribed' }];
    expect(suppressionRefusal(unsubscribed, 'ada@example.com', true)).toBeUndefined();
    expect(suppressionRefusal(unsubscribed, 'ada@example.com', false)).toBeInstanceOf(PostmarkRefusal);
    expect(suppressionRefusal([{ email: 'ada@example.com', reason: 'complaint' }], 'ada@example.com', true)).toBeInstanceOf(
      PostmarkRefusal,
    );
    expect(suppressionRefusal(unsubscribed, 'bea@example.com', false)).toBeUndefined();
  });
});

describe('the core’s errors as Postmark answers them', () => {
  it.each([
    ['a bad key', 401, 10, new UnauthorizedError()],
    ['a schema error', 422, 300, new ValidationError('The body has 1 invalid field.', [{ pointer: '/To', message: 'must be string' }])],
    [
      'a From off the sender domain',
      422,
      400,
      new UnprocessableError('from-email-not-on-sender-domain', 'from must be on mail.example.com.'),
    ],
    ['an unverified sender domain', 422, 401, new UnprocessableError('sender-domain-unverified', 'The sender domain is not verified.')],
    [
      'a program attached',
      422,
      411,
      new UnprocessableError('attachment-refused', 'An attachment is refused.', [
        { pointer: '/attachments/0/filename', message: 'setup.exe is a program or script by its name; those are not sent' },
      ]),
    ],
    [
      'an attachment that is not base64',
      422,
      300,
      new UnprocessableError('attachment-refused', 'An attachment is refused.', [
        { pointer: '/attachments/0/content', message: 'the content of a.pdf is not base64' },
      ]),
    ],
    ['a template gone', 422, 1101, new UnprocessableError('template-missing', 'The email names a template that no longer exists.')],
    ['an unavailable service', 503, 100, new ServiceUnavailableError('The bus is down.')],
    ['an unknown path', 404, 404, new NotFoundError('There is no such endpoint.')],
    ['anything else', 500, 100, new Error('boom')],
  ])('%s: HTTP %i with ErrorCode %i', (_what, status, code, error) => {
    const answer = answerPostmarkError(error);
    expect(answer).toEqual({ status, body: { ErrorCode: code, Message: expect.any(String) } });
    expect(answer.body.Message).not.toContain('boom');
  });

  it('names the fields as Postmark does', () => {
    const error = new UnprocessableError('invalid-content', 'The send has 2 invalid fields.', [
      { pointer: '/html', message: 'html or text is required' },
      { pointer: '/headers/From', message: 'is a reserved header' },
    ]);
    expect(answerPostmarkError(error).body.Message).toBe(
      "The send has 2 invalid fields. HtmlBody: html or text is required; Headers 'From': is a reserved header.",
    );
  });

  it.each([
    ['/to/1', 'To'],
    ['/user/email', 'To'],
    ['/tags/0', 'Tag'],
    ['/attachments/2/filename', 'Attachments[2].Name'],
    ['/Attachments/0/ContentType', 'Attachments[0].ContentType'],
    ['/Headers/3/Name', 'Headers[3].Name'],
    ['/metadata/order', "Metadata 'order'"],
    ['/data/a~1b', 'TemplateModel.a/b'],
    ['', 'the message'],
  ])('%s is %s', (pointer, field) => {
    expect(postmarkFieldOf(pointer)).toBe(field);
  });

  it('is an AppError, so the gateway logs none of them as a failure of its own', () => {
    expect(new PostmarkRefusal(406, 'inactive')).toBeInstanceOf(AppError);
  });
});

describe('a Postmark batch', () => {
  const ready = (recipient: string): PreparedItem => ({
    item: { to: recipient, subject: 's', html: 'h' },
    to: recipient,
    recipient,
    sendsToUnsubscribed: false,
  });

  it('answers each message in order: refused ones, suppressed ones (406), and what the core accepted or rejected', async () => {
    const given: unknown[][] = [];
    const sendBatch = (items: unknown[]): Promise<SendBatchResult[]> => {
      given.push(items);
      return Promise.resolve([
        { index: 0, status: 'accepted', message_id: 'msg_a' },
        {
          index: 1,
          status: 'rejected',
          error: {
            type: '/problems/invalid-content',
            title: 'The request cannot be processed',
            status: 422,
            detail: 'The send has 1 invalid field.',
            errors: [{ pointer: '/messages/1/html', message: 'html or text is required' }],
          },
        },
      ]);
    };
    const answers = await sendPostmarkBatch(
      [
        ready('ada@example.com'),
        { refused: { ErrorCode: 300, Message: "Invalid 'To' address: 'x'." } },
        ready('gone@example.com'),
        ready('bea@example.com'),
      ],
      {
        suppressedAmong: (addresses) => {
          expect(addresses).toEqual(['ada@example.com', 'gone@example.com', 'bea@example.com']);
          return Promise.resolve([{ email: 'gone@example.com', reason: 'complaint' }]);
        },
        sendBatch,
        now: () => new Date('2026-12-04T12:00:00.000Z'),
      },
    );
    expect(given).toEqual([
      [
        { to: 'ada@example.com', subject: 's', html: 'h' },
        { to: 'bea@example.com', subject: 's', html: 'h' },
      ],
    ]);
    expect(answers).toEqual([
      { To: 'ada@example.com', SubmittedAt: '2026-12-04T12:00:00.000Z', MessageID: 'msg_a', ErrorCode: 0, Message: 'OK' },
      { ErrorCode: 300, Message: "Invalid 'To' address: 'x'." },
      { ErrorCode: 406, Message: expect.stringContaining('Found inactive addresses: gone@example.com. Inactive') },
      { ErrorCode: 300, Message: 'The send has 1 invalid field. HtmlBody: html or text is required.' },
    ]);
  });

  it('asks neither the mailer nor the core when every message was refused', async () => {
    const never = () => Promise.reject(new Error('not called'));
    const answers = await sendPostmarkBatch([{ refused: { ErrorCode: 300, Message: 'bad' } }], {
      suppressedAmong: never,
      sendBatch: never,
      now: () => new Date(),
    });
    expect(answers).toEqual([{ ErrorCode: 300, Message: 'bad' }]);
  });
});

describe('a message read as Postmark’s outbound message details', () => {
  const read: Message = {
    id: 'msg_0123456789abcdef0123456789abcdef',
    project_id: 'p1',
    email_key: null,
    language: null,
    source: 'api',
    template: null,
    email: 'ada@example.com',
    user_id: null,
    status: 'bounced',
    accepted_at: '2026-12-04T12:00:00.000Z',
    subject: 'Your receipt',
    opened: true,
    clicked: true,
    opens: 1,
    clicks: 1,
    tags: ['receipt', 'eu'],
    metadata: { order: '4711' },
    attachments: [{ filename: 'invoice.pdf', content_type: 'application/pdf', size: 10 }],
    test: false,
    to: ['bea@example.com'],
    cc: ['cy@example.com'],
    created_at: '2026-12-04T12:00:00.000Z',
    updated_at: '2026-12-04T12:00:05.000Z',
    timeline: [
      { sequence: 1, event: 'queued', at: '2026-12-04T12:00:00.100Z' },
      { sequence: 2, event: 'sent', at: '2026-12-04T12:00:01.000Z', smtp: { code: 250, response: 'OK queued' } },
      { sequence: 3, event: 'opened', at: '2026-12-04T12:00:02.000Z' },
      { sequence: 4, event: 'clicked', at: '2026-12-04T12:00:03.000Z', url: 'https://example.com/a' },
      { sequence: 5, event: 'bounced', at: '2026-12-04T12:00:04.000Z', reason: '550 no such user' },
    ],
  };

  it('carries its recipients, status, tag, metadata, bodies and events', () => {
    const details = outboundDetailsOf(read, { subject: 'Your receipt', html: '<p>Thanks</p>', text: 'Thanks', truncated: false });
    expect(details).toEqual({
      MessageID: read.id,
      MessageStream: 'outbound',
      Tag: 'receipt',
      To: [
        { Email: 'ada@example.com', Name: '' },
        { Email: 'bea@example.com', Name: '' },
      ],
      Cc: [{ Email: 'cy@example.com', Name: '' }],
      Bcc: [],
      Recipients: ['ada@example.com', 'bea@example.com', 'cy@example.com'],
      ReceivedAt: '2026-12-04T12:00:00.000Z',
      Subject: 'Your receipt',
      Attachments: ['invoice.pdf'],
      Status: 'Sent',
      Metadata: { order: '4711' },
      Sandboxed: false,
      HtmlBody: '<p>Thanks</p>',
      TextBody: 'Thanks',
      MessageEvents: [
        expect.objectContaining({
          Type: 'Delivered',
          Recipient: 'ada@example.com',
          Details: expect.objectContaining({ DeliveryMessage: '250 OK queued' }),
        }),
        expect.objectContaining({ Type: 'Opened', ReceivedAt: '2026-12-04T12:00:02.000Z' }),
        expect.objectContaining({ Type: 'LinkClicked', Details: expect.objectContaining({ Link: 'https://example.com/a' }) }),
        expect.objectContaining({ Type: 'Bounced', Details: expect.objectContaining({ Summary: '550 no such user' }) }),
      ],
    });
  });

  it('has no bodies before the message is rendered', () => {
    const queued = { ...read, status: 'accepted' as const, timeline: [] };
    const details = outboundDetailsOf(queued, null);
    expect(details.Status).toBe('Queued');
    expect(details).not.toHaveProperty('HtmlBody');
    expect(details.MessageEvents).toEqual([]);
  });
});
