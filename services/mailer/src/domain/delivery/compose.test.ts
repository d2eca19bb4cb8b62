import { simpleParser } from 'mailparser';
import { compose, messageIdHeader, type OutgoingMail } from './compose';

const mail: OutgoingMail = {
  messageId: 'msg_1',
  senderDomain: 'mail.example.com',
  from: { name: 'Example Shop', address: 'shop@mail.example.com' },
  to: ['ada@example.org'],
  replyTo: 'help@example.com',
  subject: 'Your receipt',
  html: '<p>Thanks</p>',
  text: 'Thanks',
  unsubscribe: { url: 'https://t.example.com/t/u/tok', mailto: 'mailto:u.tok@pb-bounces.mail.example.com' },
};

describe('compose', () => {
  it('names the message by its id at the sender domain, stable across attempts', () => {
    expect(messageIdHeader('msg_1', 'mail.example.com')).toBe('<msg_1@mail.example.com>');
  });

  it('builds multipart/alternative text and HTML with the Message-ID and the one-click unsubscribe headers', async () => {
    const raw = await compose(mail);
    const parsed = await simpleParser(raw);
    expect(parsed.messageId).toBe('<msg_1@mail.example.com>');
    expect(parsed.from?.value).toEqual([{ name: 'Example Shop', address: 'shop@mail.example.com' }]);
    expect(parsed.replyTo?.value).toEqual([{ name: '', address: 'help@example.com' }]);
    expect(parsed.subject).toBe('Your receipt');
    expect(parsed.text?.trim()).toBe('Thanks');
    expect(parsed.html).toBe('<p>Thanks</p>');
    expect(raw.toString()).toMatch(/Content-Type: multipart\/alternative/);
    // The header block, unfolded.
    const headers = raw
      .toString()
      .split('\r\n\r\n')[0]!
      .replace(/\r\n\s+/g, ' ')
      .split('\r\n');
    expect(headers).toEqual(
      expect.arrayContaining([
        'List-Unsubscribe: <https://t.example.com/t/u/tok>, <mailto:u.tok@pb-bounces.mail.example.com>',
        'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
        'X-Postbus-Message-ID: msg_1',
      ]),
    );
  });

  it('has no Reply-To unless given, and a From without a name is the bare address', async () => {
    const parsed = await simpleParser(await compose({ ...mail, replyTo: null, from: { name: null, address: 'shop@mail.example.com' } }));
    expect(parsed.replyTo).toBeUndefined();
    expect(parsed.from?.value).toEqual([{ name: '', address: 'shop@mail.example.com' }]);
  });

  it("adds the send's own headers, and never one Postbus sets or one that would break a header line", async () => {
    const raw = await compose({
      ...mail,
      headers: {
        'X-Order-Id': 'ord_4711',
        Subject: 'forged',
        'List-Unsubscribe': '<https://evil.example>',
        'X-Split': 'a\r\nBcc: x@evil.example',
        // Reserved since; a command queued before the gateway refused them still never carries them.
        Sender: 'ceo@evil.example',
        'Resent-From': 'ceo@evil.example',
        'ARC-Seal': 'i=1; d=evil.example',
      },
    });
    const parsed = await simpleParser(raw);
    expect(parsed.headers.get('x-order-id')).toBe('ord_4711');
    expect(parsed.subject).toBe('Your receipt');
    expect(raw.toString()).toContain('List-Unsubscribe: <https://t.example.com/t/u/tok>');
    expect(raw.toString()).not.toContain('evil.example');
    expect(parsed.headers.has('x-split')).toBe(false);
    expect(parsed.headers.has('bcc')).toBe(false);
    for (const name of ['sender', 'resent-from', 'arc-seal']) expect(parsed.headers.has(name)).toBe(false);
  });

  it('attaches files, and sends one with a content id inline where the HTML refers to cid:', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(1000, 1)]);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const raw = await compose({
      ...mail,
      html: '<p><img src="cid:logo@shop"> Thanks</p>',
      attachments: [
        { filename: 'receipt.pdf', contentType: 'application/pdf', content: pdf },
        { filename: 'logo.png', contentType: 'image/png', content: png, contentId: 'logo@shop' },
      ],
    });
    const parsed = await simpleParser(raw);
    const byName = new Map(parsed.attachments.map((a) => [a.filename, a]));
    expect(byName.get('receipt.pdf')).toMatchObject({ contentType: 'application/pdf', contentDisposition: 'attachment' });
    expect(byName.get('receipt.pdf')!.content.equals(pdf)).toBe(true);
    expect(byName.get('logo.png')).toMatchObject({ contentType: 'image/png', contentDisposition: 'inline', cid: 'logo@shop' });
    expect(byName.get('logo.png')!.content.equals(png)).toBe(true);
    expect(raw.toString()).toMatch(/Content-Type: multipart\/mixed/);
    expect(raw.toString()).toMatch(/Content-Type: multipart\/related/);
  });

  it('names the cc addresses in a Cc header, and writes no Bcc header nor Cc when there are none', async () => {
    const raw = await compose({ ...mail, cc: ['bo@example.org', 'cy@example.org'] });
    const parsed = await simpleParser(raw);
    expect(parsed.to).toMatchObject({ value: [{ address: 'ada@example.org' }] });
    expect(parsed.cc).toMatchObject({ value: [{ address: 'bo@example.org' }, { address: 'cy@example.org' }] });
    expect(parsed.headers.has('bcc')).toBe(false);
    expect((await simpleParser(await compose({ ...mail, cc: [] }))).headers.has('cc')).toBe(false);
  });
});
