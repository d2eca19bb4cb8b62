import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readInboundReport, type InboundReport } from './inbound-report';

const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures', name));
const read = (name: string) => readInboundReport(fixture(name));
const theOutcome = (report: InboundReport) => {
  if (report.kind !== 'delivery_status') throw new Error(`not a delivery report: ${JSON.stringify(report)}`);
  expect(report.outcomes).toHaveLength(1);
  return report.outcomes[0]!;
};

const messageId = 'msg_0a1b2c3d4e5f60718293a4b5c6d7e8f9@sender.test';
const returnPath = 'b.0a1b2c3d4e5f60718293a4b5c6d7e8f9.k7sx2mnpr4tqa3vd@pb-bounces.sender.test';

describe('delivery reports written by Postfix (produced here, Debian postfix 3.7)', () => {
  it('a 550 5.1.1 at RCPT is a hard bounce, with the recipient, diagnostic, reporting MTA and the original mail', async () => {
    const report = await read('postfix/failed-550-user-unknown.eml');
    expect(report).toMatchObject({
      kind: 'delivery_status',
      format: 'rfc3464',
      reportingMta: 'relay.postfix.test',
      original: { messageId, returnPath },
    });
    expect(theOutcome(report)).toEqual({
      action: 'failed',
      recipient: 'gone@dest.test',
      status: '5.1.1',
      diagnosticCode: 'smtp; 550 5.1.1 <gone@dest.test>: Recipient address rejected: User unknown in virtual mailbox table',
      remoteMta: '127.0.0.1',
      bounce: 'hard',
    });
  });

  it('a 552 5.2.2 (mailbox full) that the MTA reports failed is hard: the status is permanent', async () => {
    expect(theOutcome(await read('postfix/failed-552-mailbox-full.eml'))).toMatchObject({
      action: 'failed',
      status: '5.2.2',
      bounce: 'hard',
    });
  });

  it('a delay warning for a 451 is soft, and its headers-only copy still names the original', async () => {
    const report = await read('postfix/delayed-451.eml');
    expect(theOutcome(report)).toMatchObject({ action: 'delayed', recipient: 'later@dest.test', status: '4.2.0', bounce: 'soft' });
    expect(report).toMatchObject({ original: { messageId } });
  });

  it('a 451 that outlived the queue (failed, 4.2.0) is soft', async () => {
    expect(theOutcome(await read('postfix/failed-451-queue-expired.eml'))).toMatchObject({
      action: 'failed',
      status: '4.2.0',
      bounce: 'soft',
    });
  });
});

describe('delivery reports written by Exim (produced here, Debian exim4 4.96)', () => {
  it('a 550 5.1.1 reported as 5.0.0 is hard, keeping the remote diagnostic', async () => {
    const report = await read('exim/failed-550-user-unknown.eml');
    expect(report).toMatchObject({ reportingMta: 'relay.exim.test', original: { messageId } });
    expect(theOutcome(report)).toMatchObject({ recipient: 'gone@dest.test', status: '5.0.0', bounce: 'hard' });
    expect(theOutcome(report).diagnosticCode).toContain('550 5.1.1');
  });

  it('a 552 is hard', async () => {
    expect(theOutcome(await read('exim/failed-552-mailbox-full.eml'))).toMatchObject({ action: 'failed', bounce: 'hard' });
  });

  it('a delay warning is soft', async () => {
    expect(theOutcome(await read('exim/delayed-451.eml'))).toMatchObject({ action: 'delayed', status: '4.0.0', bounce: 'soft' });
  });

  it('giving up on a 451 ("retry timeout exceeded", failed 5.0.0) is soft: the remote server only ever said later', async () => {
    expect(theOutcome(await read('exim/failed-451-retry-timeout.eml'))).toMatchObject({
      action: 'failed',
      status: '5.0.0',
      bounce: 'soft',
    });
  });
});

describe('the documented shapes of mailbox providers', () => {
  it('Gmail: a folded multi-line 550-5.1.1 diagnostic is hard', async () => {
    const report = await read('providers/gmail-550-account-does-not-exist.eml');
    expect(theOutcome(report)).toMatchObject({ recipient: 'nobody.here@gmail.example', status: '5.1.1', bounce: 'hard' });
    expect(report).toMatchObject({ original: { messageId: 'msg_1b2c3d4e5f60718293a4b5c6d7e8f90a@sender.test' } });
  });

  it('Outlook: an "Undeliverable:" report with its full copy attached is hard', async () => {
    const report = await read('providers/outlook-550-mailbox-unavailable.eml');
    expect(theOutcome(report)).toMatchObject({ recipient: 'someone@outlook.example', status: '5.5.0', bounce: 'hard' });
    expect(report).toMatchObject({
      original: {
        messageId: 'msg_2c3d4e5f60718293a4b5c6d7e8f90a1b@sender.test',
        returnPath: 'b.2c3d4e5f60718293a4b5c6d7e8f90a1b.p3r9yl5xso8zb6de@pb-bounces.sender.test',
      },
    });
  });

  it('Yahoo-style plain-text notice: the quoted 554 makes it hard, and the quoted copy names the original', async () => {
    const report = await read('providers/yahoo-notice-554-no-account.eml');
    expect(report).toMatchObject({
      kind: 'delivery_status',
      format: 'notice',
      original: { messageId: 'msg_3d4e5f60718293a4b5c6d7e8f90a1b2c@sender.test' },
    });
    expect(theOutcome(report)).toMatchObject({ recipient: 'departed@yahoo.example', status: '5.0.0', bounce: 'hard' });
  });

  it('qmail: "(#5.1.1)" without a reply code is hard', async () => {
    const report = await read('providers/qmail-notice-no-mailbox.eml');
    expect(theOutcome(report)).toMatchObject({ recipient: 'old.friend@smallhost.example', status: '5.1.1', bounce: 'hard' });
  });

  it('a notice with no code that says "mailbox full" is soft', async () => {
    expect(theOutcome(await read('providers/notice-over-quota-no-code.eml'))).toMatchObject({
      recipient: 'hoarder@legacy.example',
      bounce: 'soft',
    });
  });

  it('a notice that says neither a code nor a known cause is unclassified, never a bounce', async () => {
    expect(await read('providers/notice-unclassifiable.eml')).toMatchObject({
      kind: 'unclassified',
      reason: expect.stringContaining('no reply code'),
    });
  });
});

describe('complaints (RFC 5965 feedback reports)', () => {
  it('an abuse report names the complained mail through its headers and its Original-Mail-From', async () => {
    expect(await read('complaints/arf-abuse-rfc822-headers.eml')).toEqual({
      kind: 'complaint',
      feedbackType: 'abuse',
      userAgent: 'MailboxFeedback/1.0',
      recipient: 'reader@mailbox.example',
      original: { messageId, returnPath },
    });
  });

  it('a redacted report (no recipient, no return path) still names the Message-ID of the attached copy', async () => {
    expect(await read('complaints/arf-abuse-redacted-message.eml')).toEqual({
      kind: 'complaint',
      feedbackType: 'abuse',
      userAgent: 'BigMail-FBL/2.0',
      original: { messageId: 'msg_1b2c3d4e5f60718293a4b5c6d7e8f90a@sender.test' },
    });
  });
});

describe('what is neither', () => {
  it.each(['auto-replies/out-of-office.eml', 'auto-replies/vacation-x-autoreply.eml'])('%s is an auto-reply', async (name) => {
    expect(await read(name)).toEqual({ kind: 'auto_reply' });
  });

  it('a person answering the mail is unclassified', async () => {
    expect(await read('other/human-reply.eml')).toMatchObject({ kind: 'unclassified' });
  });

  it('bytes that are not a mail are unclassified', async () => {
    expect(await readInboundReport(Buffer.from([0, 255, 13, 10, 13, 10, 1, 2, 3]))).toMatchObject({ kind: 'unclassified' });
  });
});
