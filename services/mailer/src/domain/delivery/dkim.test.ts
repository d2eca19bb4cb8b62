import { generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { compose } from './compose';
import { dkimKey, dkimSign } from './dkim';

describe('dkimSign', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  const resolver = (name: string, type: string) =>
    name === 'pb1._domainkey.mail.example.com' && type === 'TXT'
      ? Promise.resolve([[record]])
      : Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));

  const message = () =>
    compose({
      messageId: 'msg_0123456789abcdef0123456789abcdef',
      senderDomain: 'mail.example.com',
      from: { name: 'Ünïcode Sender', address: 'hello@mail.example.com' },
      to: ['ann@example.org'],
      replyTo: null,
      subject: 'Welcome, Ann — a long subject line that nodemailer will fold over more than one line for sure',
      html: '<p>Hello   Ann,&nbsp;trailing   </p>\n\n\n',
      text: 'Hello Ann  \n',
      unsubscribe: { url: 'https://pb.example.com/t/u/token', mailto: 'mailto:unsubscribe@mail.example.com?subject=unsubscribe' },
    });

  it('produces a signature mailauth verifies, covering the one-click unsubscribe headers', async () => {
    const signed = await dkimSign(
      await message(),
      dkimKey('mail.example.com', 'pb1', privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
    );
    const result = await dkimVerify(signed, { resolver });
    expect(result.results[0]?.status.result).toBe('pass');
    const header = signed.toString().split('\r\n\r\n')[0]!;
    expect(header).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=mail\.example\.com; s=pb1;/);
    expect(header.replace(/\r\n\t/g, '')).toContain('list-unsubscribe:list-unsubscribe-post');
    expect(header).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(header).toContain('Message-ID: <msg_0123456789abcdef0123456789abcdef@mail.example.com>');
  });

  it('fails verification when the body changes after signing', async () => {
    const signed = (
      await dkimSign(await message(), dkimKey('mail.example.com', 'pb1', privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()))
    ).toString();
    const tampered = Buffer.from(signed.replace('Hello Ann', 'Hello Bob'));
    const result = await dkimVerify(tampered, { resolver });
    // mailauth reports a body that no longer matches its hash as neutral, never as a pass.
    expect(result.results[0]?.status).toMatchObject({ result: 'neutral', comment: 'body hash did not verify' });
  });

  it('signs a message with an attachment and an inline part so that it verifies', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(300_000, 7)]);
    const raw = await compose({
      messageId: 'msg_attached',
      senderDomain: 'mail.example.com',
      from: { name: null, address: 'hello@mail.example.com' },
      to: ['ann@example.org'],
      replyTo: null,
      subject: 'Your invoice',
      html: '<p><img src="cid:logo"> Invoice attached</p>',
      text: 'Invoice attached',
      unsubscribe: { url: 'https://pb.example.com/t/u/token', mailto: 'mailto:unsubscribe@mail.example.com?subject=unsubscribe' },
      attachments: [
        { filename: 'invoice.pdf', contentType: 'application/pdf', content: pdf },
        { filename: 'logo.png', contentType: 'image/png', content: Buffer.from('png'), contentId: 'logo' },
      ],
    });
    const signed = await dkimSign(raw, dkimKey('mail.example.com', 'pb1', privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()));
    const result = await dkimVerify(signed, { resolver });
    expect(result.results[0]?.status.result).toBe('pass');
  });
});
