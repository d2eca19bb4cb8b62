import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import type { ContentSendRequest } from '@postbus/contracts';
import { createLogger } from '@postbus/logger';
import type { ReadSubmission } from '../domain/ports';
import { WorkerSubmissionReader } from './submission-reader';
import { readSubmission } from './submission-reader.worker';

const logger = createLogger({ service: 'submission-test', level: 'error' });
const compose = (mail: Mail.Options): Promise<Buffer> => new MailComposer(mail).compile().build();

/** The content sends of a read that was not refused, parsed back from their JSON. */
function sendsOf(read: ReadSubmission): Array<{ request: ContentSendRequest; idempotencyKey?: string }> {
  if ('refusal' in read) throw new Error(`refused: ${read.refusal.code} ${read.refusal.message}`);
  return read.sends.map(({ body, idempotencyKey }) => ({ request: JSON.parse(body) as ContentSendRequest, idempotencyKey }));
}

describe('reading a submitted message (mailparser) into its content sends', () => {
  it('reads what a mailer writes: From, To, Cc, Reply-To, subject, both bodies, a file, an inline image, custom and control headers', async () => {
    const pdf = Buffer.from('%PDF-1.4\n' + 'x'.repeat(50));
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const raw = await compose({
      from: '"Shop, Billing" <billing@shop.example>',
      to: ['Ada <ada@example.org>', 'list@example.org'],
      cc: 'books@example.org',
      bcc: 'archive@example.org',
      replyTo: 'help@shop.example',
      subject: 'Grüße: your receipt',
      text: 'Thanks for your order',
      html: '<p>Thanks <img src="cid:logo@shop"></p>',
      attachments: [
        { filename: 'invoice-4711.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'logo.png', content: png, cid: 'logo@shop' },
      ],
      headers: {
        'X-Order-Id': 'ord_4711',
        'X-Greeting': 'Grüße',
        'X-Postbus-Tags': 'receipt,shop:eu',
        'X-Postbus-Metadata': '{"order_id":"4711"}',
        'X-Postbus-Track': 'clicks',
      },
    });
    const [send] = sendsOf(await readSubmission({ raw, rcptTo: ['ada@example.org', 'books@example.org', 'archive@example.org'] }));
    const { attachments, ...rest } = send!.request;
    // Nodemailer writes the inline image (multipart/related) before the file (multipart/mixed).
    expect(attachments).toEqual([
      { filename: 'logo.png', content: png.toString('base64'), content_type: 'image/png', content_id: 'logo@shop' },
      { filename: 'invoice-4711.pdf', content: pdf.toString('base64'), content_type: 'application/pdf' },
    ]);
    expect(rest).toEqual({
      from: 'Shop, Billing <billing@shop.example>',
      to: 'ada@example.org',
      cc: ['books@example.org'],
      bcc: ['archive@example.org'],
      subject: 'Grüße: your receipt',
      text: 'Thanks for your order',
      html: '<p>Thanks <img src="cid:logo@shop"></p>',
      reply_to: 'help@shop.example',
      // Header names as the mailer wrote them (Nodemailer capitalizes each word).
      headers: { 'X-Order-ID': 'ord_4711', 'X-Greeting': 'Grüße' },
      tags: ['receipt', 'shop:eu'],
      metadata: { order_id: '4711' },
      track_opens: false,
      track_clicks: true,
    });
    expect(send!.idempotencyKey).toBeUndefined();
  });

  it('keeps only the bodies the message has: HTML alone stays HTML alone', async () => {
    const raw = await compose({ from: 'a@shop.example', to: 'ada@example.org', subject: 'x', html: '<p>only html</p>' });
    const [send] = sendsOf(await readSubmission({ raw, rcptTo: ['ada@example.org'] }));
    expect(send!.request.html).toMatch(/^<p>only html<\/p>\s*$/);
    expect(send!.request).not.toHaveProperty('text');
  });

  it.each([
    [
      'a multipart body without a boundary',
      'From: a@shop.example\r\nTo: ada@example.org\r\nSubject: x\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed\r\n\r\nhello\r\n',
      /^5\.6\.0 Malformed MIME: the message is multipart\/mixed but its Content-Type has no boundary/,
    ],
    [
      'a boundary the body never has',
      'From: a@shop.example\r\nTo: ada@example.org\r\nSubject: x\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="zzz"\r\n\r\n--other\r\n\r\nhello\r\n',
      /^5\.6\.0 Malformed MIME: the multipart\/alternative boundary "zzz" never appears/,
    ],
    ['no header at all', '\r\njust a body\r\n', /^5\.6\.0 The message has no header fields/],
  ])('refuses malformed MIME with 550 5.6.0 naming the problem: %s', async (_case, raw, message) => {
    const read = await readSubmission({ raw: Buffer.from(raw), rcptTo: ['ada@example.org'] });
    expect(read).toEqual({ refusal: { code: 550, message: expect.stringMatching(message) } });
  });

  describe('on worker threads', () => {
    let reader: WorkerSubmissionReader | undefined;
    afterEach(async () => {
      await reader?.close();
      reader = undefined;
    });

    it('reads a message as on the caller’s thread', async () => {
      reader = new WorkerSubmissionReader({ threads: 1, budgetMs: 5_000, logger });
      const raw = await compose({ from: 'a@shop.example', to: 'ada@example.org', subject: 'x', text: 'hi' });
      const input = { raw, envelope: { rcptTo: ['ada@example.org'] } };
      expect(await reader.read(input)).toEqual(await readSubmission({ raw, rcptTo: input.envelope.rcptTo }));
    });

    it('abandons a read past its budget with 554 5.6.0, and reads the next message on a new thread', async () => {
      reader = new WorkerSubmissionReader({
        threads: 1,
        budgetMs: 300,
        logger,
        workerFile: join(__dirname, '../../test/runaway-read.worker.ts'),
      });
      const raw = await compose({ from: 'a@shop.example', to: 'ada@example.org', subject: 'x', text: 'hi' });
      const input = { raw, envelope: { rcptTo: ['ada@example.org'] } };
      await reader.read(input); // the thread has started
      const started = performance.now();
      expect(await reader.read({ ...input, raw: Buffer.from('RUNAWAY') })).toEqual({
        refusal: { code: 554, message: "5.6.0 The message could not be read within Postbus's limits: it took more than 300 ms" },
      });
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(sendsOf(await reader.read(input))).toHaveLength(1);
    });
  });
});
