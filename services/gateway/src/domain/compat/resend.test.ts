import type { Message } from '@postbus/contracts';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
  UnprocessableError,
  ValidationError,
} from '@postbus/errors';
import {
  answerResendError,
  isMessageId,
  lastEventOf,
  resendBatchItemOf,
  resendEmailOf,
  resendFieldOf,
  resendSendOf,
  ResendRefusal,
  scheduledAtOf,
} from './resend';

const NOW = new Date('2026-12-01T10:00:00.000Z');
/** The mapping's clock and address check (the schemas' email format, roughly). */
const AT_NOW = { now: NOW, isAddress: (address: string) => /^[^@\s]+@[^@\s]+\.[a-z]+$/.test(address) };

const base = { from: 'Acme <billing@acme.example>', to: 'ada@example.com', subject: 'Hi', html: '<p>Hi</p>' };

/** The name and status a thrown error is answered with. */
const answered = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return answerResendError(error);
  }
  throw new Error('it did not throw');
};

describe("Resend's sends as the core's", () => {
  it('maps a content send: the first to is the recipient, names are read off, tags become metadata, scheduled_at becomes send_at', () => {
    const mapped = resendSendOf(
      {
        ...base,
        to: ['Ada Lovelace <ada@example.com>', '"Grace, H." <grace@example.com>'],
        cc: 'Cy <cy@example.com>',
        bcc: ['archive@example.com'],
        reply_to: ['Help <help@acme.example>'],
        text: 'Hi',
        headers: { 'X-Order': '4711' },
        tags: [{ name: 'category', value: 'receipt' }, { name: 'flag' }],
        scheduled_at: '2026-12-02T08:30:00+01:00',
      },
      AT_NOW,
    );
    expect(mapped).toEqual({
      kind: 'content',
      send: {
        from: 'Acme <billing@acme.example>',
        to: ['ada@example.com', 'grace@example.com'],
        subject: 'Hi',
        html: '<p>Hi</p>',
        text: 'Hi',
        cc: ['cy@example.com'],
        bcc: ['archive@example.com'],
        reply_to: 'help@acme.example',
        headers: { 'X-Order': '4711' },
        metadata: { category: 'receipt', flag: '' },
        send_at: '2026-12-02T07:30:00.000Z',
      },
    });
  });

  it('takes a single to as a list of one (the core then points at to[0]), and takes attachments as base64, as a list of bytes, and with inline_content_id', () => {
    const mapped = resendSendOf(
      {
        ...base,
        attachments: [
          { filename: 'a.pdf', content: 'JVBERi0=' },
          { filename: 'b.bin', content: [1, 2, 255], content_type: 'application/octet-stream' },
          { filename: 'logo.png', content: 'iVBORw==', inline_content_id: 'logo' },
        ],
      },
      AT_NOW,
    );
    expect(mapped.kind === 'content' && mapped.send.to).toEqual(['ada@example.com']);
    expect(mapped.send.attachments).toEqual([
      { filename: 'a.pdf', content: 'JVBERi0=' },
      { filename: 'b.bin', content: Buffer.from([1, 2, 255]).toString('base64'), content_type: 'application/octet-stream' },
      { filename: 'logo.png', content: 'iVBORw==', content_id: 'logo' },
    ]);
  });

  it('refuses what is no mailbox in Resend’s words: a to, cc or reply_to as validation_error, a from as invalid_from_address', () => {
    for (const [field, value] of [
      ['to', ['ada@example.com', 'not an address']],
      ['cc', 'Cy <not-an-address>'],
      ['reply_to', ['']],
    ] as const) {
      expect(answered(() => resendSendOf({ ...base, [field]: value }, AT_NOW))).toEqual({
        status: 422,
        body: {
          statusCode: 422,
          name: 'validation_error',
          message: `Invalid \`${field}\` field. The email address needs to follow the \`email@example.com\` or \`Name <email@example.com>\` format.`,
        },
      });
    }
    expect(answered(() => resendSendOf({ ...base, from: 'Acme billing' }, AT_NOW)).body.name).toBe('invalid_from_address');
  });

  it('says what is missing as Resend does: from, subject, html or text', () => {
    const { from: _from, ...noFrom } = base;
    expect(answered(() => resendSendOf(noFrom, AT_NOW))).toEqual({
      status: 422,
      body: { statusCode: 422, name: 'missing_required_field', message: 'Missing `from` field.' },
    });
    const { subject: _subject, ...noSubject } = base;
    expect(answered(() => resendSendOf(noSubject, AT_NOW)).body.message).toBe('Missing `subject` field.');
    const { html: _html, ...noBody } = base;
    expect(answered(() => resendSendOf(noBody, AT_NOW)).body).toMatchObject({
      name: 'missing_required_field',
      message: 'Missing `html` or `text` field.',
    });
  });

  it('refuses an attachment to fetch from a URL, one without content or name, bytes that are not bytes, and a tag name twice', () => {
    const refusal = (attachments: unknown) => answered(() => resendSendOf({ ...base, attachments } as never, AT_NOW)).body;
    expect(refusal([{ filename: 'a.pdf', path: 'https://files.example/a.pdf' }])).toMatchObject({
      name: 'invalid_attachment',
      message: expect.stringContaining('`attachments[0].path` is not offered'),
    });
    expect(refusal([{ filename: 'a.pdf' }]).message).toBe('`attachments[0]` must have a `content`.');
    expect(refusal([{ content: 'JVBERi0=' }]).message).toBe('`attachments[0]` must have a `filename`.');
    expect(refusal([{ filename: 'a', content: [1, 256] }]).name).toBe('invalid_attachment');
    const twice = answered(() =>
      resendSendOf(
        {
          ...base,
          tags: [
            { name: 'a', value: '1' },
            { name: 'a', value: '2' },
          ],
        },
        AT_NOW,
      ),
    );
    expect(twice.body).toMatchObject({ name: 'validation_error', message: expect.stringContaining('`a` is given twice') });
  });

  it("sends one of the project's emails with `template`: its key, the variables as data, the one to as its user", () => {
    const mapped = resendSendOf(
      { to: 'Ada <ada@example.com>', template: { id: 'welcome', variables: { code: 42 } }, cc: 'cy@example.com' },
      AT_NOW,
    );
    expect(mapped).toEqual({
      kind: 'template',
      emailKey: 'welcome',
      send: { user: { email: 'ada@example.com' }, data: { code: 42 }, cc: ['cy@example.com'] },
    });
    expect(resendBatchItemOf({ to: 'ada@example.com', template: { id: 'welcome' } }, AT_NOW)).toEqual({
      email_key: 'welcome',
      user: { email: 'ada@example.com' },
    });
  });

  it('refuses a template send that gives its own sender, subject or bodies, or goes to more than one', () => {
    const withFrom = answered(() => resendSendOf({ ...base, template: { id: 'welcome' } }, AT_NOW)).body;
    expect(withFrom).toMatchObject({ name: 'validation_error', message: expect.stringContaining('leave out `from`, `subject`, `html`') });
    const two = answered(() => resendSendOf({ to: ['a@example.com', 'b@example.com'], template: { id: 'welcome' } }, AT_NOW)).body;
    expect(two.message).toContain('goes to one recipient');
  });
});

describe('scheduled_at', () => {
  it('reads ISO 8601 with its zone, and "in <n> <unit>" from now', () => {
    expect(scheduledAtOf('2026-12-01T12:00:00Z', NOW)).toBe('2026-12-01T12:00:00.000Z');
    expect(scheduledAtOf('2026-12-01T12:00:00.5-02:00', NOW)).toBe('2026-12-01T14:00:00.500Z');
    expect(scheduledAtOf('in 1 min', NOW)).toBe('2026-12-01T10:01:00.000Z');
    expect(scheduledAtOf(' in 2 hours ', NOW)).toBe('2026-12-01T12:00:00.000Z');
    expect(scheduledAtOf('in 3 days', NOW)).toBe('2026-12-04T10:00:00.000Z');
    expect(scheduledAtOf('In 30 Seconds', NOW)).toBe('2026-12-01T10:00:30.000Z');
  });

  it('refuses other natural language and a time without its zone, saying what it reads', () => {
    for (const text of ['tomorrow at 9am', 'Friday at 3pm ET', '2026-12-01T12:00:00', 'in a minute', 'soon']) {
      expect(() => scheduledAtOf(text, NOW)).toThrow(ResendRefusal);
      expect(answered(() => scheduledAtOf(text, NOW)).body).toMatchObject({
        name: 'validation_error',
        message: expect.stringContaining('ISO 8601 time with its zone'),
      });
    }
  });
});

const message = (over: Partial<Message> = {}): Message => ({
  id: 'msg_0000000000000000000000000000000a',
  project_id: 'p',
  language: null,
  email_key: null,
  source: 'api',
  template: null,
  email: 'ada@example.com',
  user_id: null,
  status: 'sent',
  accepted_at: '2026-12-01T10:00:00.000Z',
  subject: 'Hi',
  opened: false,
  clicked: false,
  opens: 0,
  clicks: 0,
  tags: [],
  metadata: { category: 'receipt' },
  attachments: [],
  test: false,
  created_at: '2026-12-01T10:00:00.000Z',
  updated_at: '2026-12-01T10:00:00.000Z',
  timeline: [],
  ...over,
});

const entry = (sequence: number, event: Message['timeline'][number]['event']) => ({ sequence, event, at: '2026-12-01T10:00:00.000Z' });

describe('a message read as Resend reads an email', () => {
  it('names the latest event Resend has a word for', () => {
    expect(lastEventOf(message({ status: 'accepted' }))).toBe('queued');
    expect(lastEventOf(message({ status: 'queued', timeline: [entry(1, 'queued')] }))).toBe('sent');
    expect(lastEventOf(message({ status: 'scheduled', timeline: [entry(1, 'scheduled')] }))).toBe('scheduled');
    expect(lastEventOf(message({ timeline: [entry(1, 'queued'), entry(2, 'sent')] }))).toBe('delivered');
    expect(lastEventOf(message({ status: 'deferred', timeline: [entry(1, 'queued'), entry(2, 'deferred')] }))).toBe('delivery_delayed');
    expect(lastEventOf(message({ timeline: [entry(3, 'opened'), entry(2, 'sent'), entry(1, 'queued')] }))).toBe('opened');
    // An unsubscribe has no word in Resend: the click before it stands.
    expect(lastEventOf(message({ timeline: [entry(1, 'queued'), entry(2, 'sent'), entry(3, 'clicked'), entry(4, 'unsubscribed')] }))).toBe(
      'clicked',
    );
    expect(lastEventOf(message({ timeline: [entry(2, 'sent'), entry(3, 'complained')] }))).toBe('complained');
    expect(lastEventOf(message({ status: 'suppressed', timeline: [entry(1, 'queued'), entry(2, 'suppressed')] }))).toBe('suppressed');
    expect(lastEventOf(message({ status: 'canceled', timeline: [entry(1, 'scheduled'), entry(2, 'canceled')] }))).toBe('canceled');
    expect(lastEventOf(message({ status: 'bounced', timeline: [entry(2, 'bounced')] }))).toBe('bounced');
  });

  it('answers GET /emails/{id} with the recipients, the rendered bodies, the schedule and the metadata as tags', () => {
    const read = message({
      to: ['bea@example.com'],
      cc: ['cy@example.com'],
      send_at: '2026-12-02T08:00:00.000Z',
      status: 'scheduled',
      timeline: [entry(1, 'scheduled')],
    });
    expect(resendEmailOf(read, null)).toEqual({
      object: 'email',
      id: read.id,
      to: ['ada@example.com', 'bea@example.com'],
      from: '',
      created_at: read.accepted_at,
      subject: 'Hi',
      html: null,
      text: null,
      cc: ['cy@example.com'],
      bcc: null,
      reply_to: null,
      last_event: 'scheduled',
      scheduled_at: '2026-12-02T08:00:00.000Z',
      tags: [{ name: 'category', value: 'receipt' }],
    });
    expect(resendEmailOf(message(), { subject: 'Hi', html: '<p>Hi</p>', text: 'Hi', truncated: false })).toMatchObject({
      html: '<p>Hi</p>',
      text: 'Hi',
      last_event: 'delivered',
    });
  });

  it('knows a message id from anything else', () => {
    expect(isMessageId('msg_0000000000000000000000000000000a')).toBe(true);
    expect(isMessageId('49a3999c-0ce1-4ea6-ab68-afcd6dc2e794')).toBe(false);
  });
});

describe("errors in Resend's names", () => {
  it('names fields as Resend does', () => {
    expect(resendFieldOf('/send_at')).toBe('scheduled_at');
    expect(resendFieldOf('/attachments/0/filename')).toBe('attachments[0].filename');
    expect(resendFieldOf('/user/email')).toBe('to');
    expect(resendFieldOf('/metadata/category')).toBe('tags');
    expect(resendFieldOf('/to/1')).toBe('to[1]');
    expect(resendFieldOf('/data/code')).toBe('template.variables.code');
    expect(resendFieldOf('')).toBe('body');
  });

  it('answers the key errors: none is missing_api_key (401), a bad one invalid_api_key (403), a scope restricted_api_key (401)', () => {
    expect(answerResendError(new UnauthorizedError())).toMatchObject({ status: 401, body: { name: 'missing_api_key', statusCode: 401 } });
    expect(answerResendError(new UnauthorizedError('The API key is not valid, or it was revoked.'))).toMatchObject({
      status: 403,
      body: { name: 'invalid_api_key' },
    });
    expect(
      answerResendError(new ForbiddenError('This operation needs a key with scope "full"; this key has scope "sdk", which may only send…')),
    ).toMatchObject({ status: 401, body: { name: 'restricted_api_key' } });
    expect(answerResendError(new ForbiddenError('This API acts on one project: send a key bound to a project.'))).toMatchObject({
      status: 403,
      body: { name: 'invalid_api_key', message: expect.stringContaining('bound to a project') },
    });
  });

  it('answers the Idempotency-Key errors as Resend does', () => {
    expect(answerResendError(new UnprocessableError('idempotency-key-reused', 'x'))).toMatchObject({
      status: 409,
      body: { name: 'invalid_idempotent_request' },
    });
    expect(answerResendError(new ConflictError('idempotency-in-flight', 'x'))).toMatchObject({
      status: 409,
      body: { name: 'concurrent_idempotent_requests' },
    });
    const badKey = new ValidationError('The Idempotency-Key header must be 1 to 255 printable ASCII characters.', [
      { pointer: '', message: 'Idempotency-Key header is invalid' },
    ]);
    expect(answerResendError(badKey)).toMatchObject({ status: 400, body: { name: 'invalid_idempotency_key' } });
  });

  it("answers field errors in Resend's words, a missing field as missing_required_field", () => {
    expect(answerResendError(new ValidationError('x', [{ pointer: '/to', message: 'is required' }]))).toEqual({
      status: 422,
      body: { statusCode: 422, name: 'missing_required_field', message: 'Missing `to` field.' },
    });
    expect(answerResendError(new ValidationError('x', [{ pointer: '/cc/0', message: 'must match format "email"' }])).body).toEqual({
      statusCode: 400,
      name: 'validation_error',
      message: 'Invalid `cc[0]` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.',
    });
    expect(
      answerResendError(
        new UnprocessableError('invalid-send-at', 'send_at is in the past', [{ pointer: '/send_at', message: 'is in the past' }]),
      ),
    ).toMatchObject({
      status: 422,
      body: { name: 'validation_error', message: expect.stringMatching(/^Invalid `scheduled_at` field: is in the past/) },
    });
    expect(
      answerResendError(new UnprocessableError('invalid-content', 'x', [{ pointer: '/from', message: 'must be an address' }])),
    ).toMatchObject({
      status: 422,
      body: { name: 'invalid_from_address' },
    });
  });

  it('answers the core’s refusals: an unverified From 403, an attachment invalid_attachment, anything else validation_error', () => {
    expect(answerResendError(new UnprocessableError('sender-domain-unverified', 'The sender domain x is not verified'))).toMatchObject({
      status: 403,
      body: { name: 'validation_error', message: 'The sender domain x is not verified' },
    });
    expect(answerResendError(new UnprocessableError('attachment-refused', 'An attachment is refused: a.exe is a program'))).toMatchObject({
      status: 422,
      body: { name: 'invalid_attachment' },
    });
    expect(answerResendError(new UnprocessableError('reserved-header', 'A send may not set From'))).toMatchObject({
      status: 422,
      body: { name: 'validation_error' },
    });
    expect(answerResendError(new ConflictError('message-not-cancelable', 'The message was sent'))).toMatchObject({
      status: 409,
      body: { name: 'validation_error', message: 'The message was sent' },
    });
  });

  it('answers not found, rate limits, an unavailable service and anything unknown', () => {
    expect(answerResendError(new NotFoundError('Email not found.'))).toMatchObject({ status: 404, body: { name: 'not_found' } });
    expect(answerResendError(new TooManyRequestsError('slow down', 1))).toMatchObject({
      status: 429,
      body: { name: 'rate_limit_exceeded' },
    });
    expect(answerResendError(new ServiceUnavailableError('The mailer did not answer'))).toMatchObject({
      status: 503,
      body: { name: 'application_error' },
    });
    const hidden = answerResendError(new Error('connection to 10.0.0.3 refused'));
    expect(hidden).toMatchObject({ status: 500, body: { name: 'application_error' } });
    expect(JSON.stringify(hidden)).not.toContain('10.0.0.3');
  });
});
