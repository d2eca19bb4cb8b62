import { customHeadersOf, fromOf, planSubmission, prepareSend, type PlannedSend } from './content-send';
import type { SubmittedMail } from './submitted-mail';

const mail = (overrides: Partial<SubmittedMail> = {}): SubmittedMail => ({
  from: [{ address: 'billing@shop.example', name: 'Shop Billing' }],
  to: [{ address: 'ada@example.org', name: 'Ada' }],
  cc: [],
  replyTo: [],
  subject: 'Your receipt',
  html: '<p>Thanks</p>',
  text: 'Thanks',
  attachments: [],
  headers: [],
  ...overrides,
});
const envelope = (...rcptTo: string[]) => ({ rcptTo });
const sendsOf = (plan: ReturnType<typeof planSubmission>): PlannedSend[] => {
  if ('refusal' in plan) throw new Error(`refused: ${plan.refusal.code} ${plan.refusal.message}`);
  return plan.sends;
};

describe('a submitted message as a content send', () => {
  it('keeps From with its display name, the subject, both bodies, Reply-To and the addressing', () => {
    const [send] = sendsOf(
      planSubmission(
        mail({
          cc: [{ address: 'books@example.org', name: '' }],
          replyTo: [
            { address: 'help@shop.example', name: 'Help' },
            { address: 'other@shop.example', name: '' },
          ],
        }),
        envelope('ada@example.org', 'books@example.org', 'archive@example.org'),
      ),
    );
    expect(send!.request).toEqual({
      from: 'Shop Billing <billing@shop.example>',
      to: 'ada@example.org',
      cc: ['books@example.org'],
      bcc: ['archive@example.org'],
      subject: 'Your receipt',
      html: '<p>Thanks</p>',
      text: 'Thanks',
      reply_to: 'help@shop.example',
    });
  });

  it('sends several To recipients as a list whose first is the recipient', () => {
    const [send] = sendsOf(
      planSubmission(
        mail({
          to: [
            { address: 'b@example.org', name: '' },
            { address: 'a@example.org', name: '' },
          ],
        }),
        envelope('a@example.org', 'b@example.org'),
      ),
    );
    expect(send!.request.to).toEqual(['b@example.org', 'a@example.org']);
  });

  it('leaves the From to the project when the message has none, and keeps only the body parts it has', () => {
    const [send] = sendsOf(planSubmission(mail({ from: [], html: undefined }), envelope('ada@example.org')));
    expect(send!.request).not.toHaveProperty('from');
    expect(send!.request).not.toHaveProperty('html');
    expect(send!.request.text).toBe('Thanks');
  });

  it('writes a display name without what would break `Name <address>`', () => {
    expect(fromOf({ address: 'a@shop.example', name: '"Shop" <Billing>\r\n' })).toBe('Shop Billing <a@shop.example>');
    expect(fromOf({ address: 'a@shop.example', name: '  ' })).toBe('a@shop.example');
  });

  it('keeps custom headers, drops the reserved ones every mailer sets, and never delivers a control header', () => {
    const headers = [
      ['Date', 'Mon, 1 Jan 2030 09:00:00 +0000'],
      ['Message-ID', '<abc@app.example>'],
      ['MIME-Version', '1.0'],
      ['Content-Type', 'multipart/mixed; boundary=x'],
      ['Content-Transfer-Encoding', '7bit'],
      ['Received', 'from app by relay'],
      ['Return-Path', '<bounce@app.example>'],
      ['DKIM-Signature', 'v=1; a=rsa-sha256'],
      ['List-Unsubscribe', '<mailto:u@app.example>'],
      ['From', 'x@shop.example'],
      ['To', 'ada@example.org'],
      ['Bcc', 'secret@example.org'],
      ['X-Postbus-Tags', 'receipt'],
      ['X-Postbus-Message-Id', 'msg_old'],
      ['X-Mailer', 'Nodemailer'],
      ['X-Order-Id', 'ord_4711'],
      ['x-order-id', 'second value of a repeated name'],
      ['In-Reply-To', '<earlier@app.example>'],
      ['References', '<a@app.example>\r\n <b@app.example>'],
    ].map(([name, value]) => ({ name: name!, value: value! }));
    expect(customHeadersOf({ headers })).toEqual({
      'X-Mailer': 'Nodemailer',
      'X-Order-Id': 'ord_4711',
      'In-Reply-To': '<earlier@app.example>',
      References: '<a@app.example> <b@app.example>',
    });
    const [send] = sendsOf(planSubmission(mail({ headers }), envelope('ada@example.org')));
    expect(send!.request.tags).toEqual(['receipt']);
    expect(Object.keys(send!.request.headers ?? {})).not.toContain('X-Postbus-Tags');
  });

  it('sends attachments with their media types, and inline parts with their Content-IDs', () => {
    const pdf = Buffer.from('%PDF-1.4 invoice');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const [send] = sendsOf(
      planSubmission(
        mail({
          attachments: [
            { filename: 'invoice.pdf', contentType: 'application/pdf', content: pdf, inline: false, contentId: 'not-shown-inline' },
            { filename: 'logo.png', contentType: 'image/png', content: png, contentId: 'logo@shop', inline: true },
            { contentType: 'image/gif', content: png, contentId: 'spacer', inline: true },
            { filename: '../../etc/passwd\r\n', contentType: 'weird', content: pdf, inline: false },
          ],
        }),
        envelope('ada@example.org'),
      ),
    );
    expect(send!.request.attachments).toEqual([
      { filename: 'invoice.pdf', content: pdf.toString('base64'), content_type: 'application/pdf' },
      { filename: 'logo.png', content: png.toString('base64'), content_type: 'image/png', content_id: 'logo@shop' },
      { filename: 'spacer.gif', content: png.toString('base64'), content_type: 'image/gif', content_id: 'spacer' },
      { filename: '.._.._etc_passwd_', content: pdf.toString('base64') },
    ]);
  });

  it('takes its Idempotency-Key from X-Postbus-Idempotency-Key, and has none without it', () => {
    const keyed = mail({ headers: [{ name: 'X-Postbus-Idempotency-Key', value: 'order-1' }] });
    expect(sendsOf(planSubmission(keyed, envelope('ada@example.org')))[0]!.idempotencyKey).toBe('order-1');
    expect(sendsOf(planSubmission(mail(), envelope('ada@example.org')))[0]!).not.toHaveProperty('idempotencyKey');
  });

  it('makes one send per blind recipient, each with its own key, when none is named in To or Cc', () => {
    const keyed = mail({ to: [], headers: [{ name: 'X-Postbus-Idempotency-Key', value: 'order-1' }] });
    const sends = sendsOf(planSubmission(keyed, envelope('a@example.org', 'b@example.org')));
    expect(sends.map((s) => [s.request.to, s.request.bcc, s.idempotencyKey])).toEqual([
      ['a@example.org', undefined, 'order-1:1'],
      ['b@example.org', undefined, 'order-1:2'],
    ]);
    expect(sendsOf(planSubmission(mail({ to: [] }), envelope('a@example.org', 'b@example.org'))).map((s) => s.idempotencyKey)).toEqual([
      undefined,
      undefined,
    ]);
  });

  it.each([
    ['without a subject', mail({ subject: undefined }), 550, /^5\.6\.0 The message has no Subject/],
    ['with a blank subject', mail({ subject: ' \r\n ' }), 550, /^5\.6\.0 The message has no Subject/],
    ['without a body', mail({ html: undefined, text: undefined }), 550, /^5\.6\.0 The message has no text or HTML body/],
    [
      'with a bad control header',
      mail({ headers: [{ name: 'X-Postbus-Track', value: 'always' }] }),
      550,
      /^5\.6\.0 X-Postbus-Track: is `opens`/,
    ],
  ])('refuses a message %s', (_case, submitted, code, message) => {
    const plan = planSubmission(submitted, envelope('ada@example.org'));
    expect(plan).toEqual({ refusal: { code, message: expect.stringMatching(message) } });
  });

  it('serializes a send as the gateway takes it', () => {
    const [send] = sendsOf(planSubmission(mail(), envelope('ada@example.org')));
    expect(JSON.parse(prepareSend(send!).body)).toEqual(send!.request);
  });
});
