import { ReturnPathTokens } from '@postbus/crypto';
import { carriesToken } from './token-presence';

const tokens = new ReturnPathTokens('a-token-presence-test-secret-of-32-chars');
const messageId = 'msg_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const bounce = `${tokens.localPart({ purpose: 'bounce', messageId })}@pb-bounces.sender.test`;
const forged = `b.${messageId.slice(4)}.aaaaaaaaaaaaaaaaaaaa@pb-bounces.sender.test`;
const report = (original: string) =>
  Buffer.from(`From: fbl@isp.test\r\nTo: fbl@pb-bounces.sender.test\r\nSubject: report\r\n\r\n${original}\r\n`, 'latin1');
const toPostmaster = ['postmaster@pb-bounces.sender.test'];

describe('whether a mail names one of our messages', () => {
  it('by a signed token as a recipient, in any case', () => {
    expect(carriesToken({ head: report('hi'), rcptTo: [bounce.toUpperCase()] }, tokens)).toBe(true);
    expect(carriesToken({ head: report('hi'), rcptTo: [forged] }, tokens)).toBe(false);
  });

  it('by a signed token in the original it quotes: plain, cut by quoted-printable soft breaks, or in base64', () => {
    expect(carriesToken({ head: report(`Return-Path: <${bounce}>`), rcptTo: toPostmaster }, tokens)).toBe(true);
    const quotedPrintable = `Return-Path: <${bounce.slice(0, 30)}=\r\n${bounce.slice(30)}>`;
    expect(carriesToken({ head: report(quotedPrintable), rcptTo: toPostmaster }, tokens)).toBe(true);
    const base64 = Buffer.from(`Return-Path: <${bounce}>\r\nSubject: your receipt\r\n\r\nthanks\r\n`)
      .toString('base64')
      .replace(/.{76}/g, '$&\r\n');
    expect(carriesToken({ head: report(`Content-Transfer-Encoding: base64\r\n\r\n${base64}`), rcptTo: toPostmaster }, tokens)).toBe(true);
  });

  it('not by a forged token, a bare message id, or thousands of look-alikes (checked up to a bound, each scan linear)', () => {
    expect(
      carriesToken({ head: report(`Return-Path: <${forged}>\r\nMessage-ID: <${messageId}@sender.test>`), rcptTo: toPostmaster }, tokens),
    ).toBe(false);
    const lookAlikes = `${forged} `.repeat(5_000);
    expect(carriesToken({ head: Buffer.concat([report(lookAlikes), Buffer.from(bounce)]), rcptTo: toPostmaster }, tokens)).toBe(false);
    const blankLines = '\r\n'.repeat(100_000);
    expect(carriesToken({ head: report(blankLines), rcptTo: toPostmaster }, tokens)).toBe(false);
    const base64Line = `${'QUFB'.repeat(60_000)}`;
    expect(carriesToken({ head: report(base64Line), rcptTo: toPostmaster }, tokens)).toBe(false);
  });
});
