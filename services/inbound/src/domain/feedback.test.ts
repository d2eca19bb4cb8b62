import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReturnPathTokens } from '@postbus/crypto';
import { feedbackOf, receivedRecordOf, type Feedback, type Verdict } from './feedback';

const tokens = new ReturnPathTokens('an-inbound-test-secret-of-at-least-32-chars');
const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures', name));
const messageId = 'msg_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const returnPath = (purpose: 'bounce' | 'unsubscribe', id = messageId) =>
  `${tokens.localPart({ purpose, messageId: id })}@pb-bounces.sender.test`;
const receivedAt = '2026-11-26T18:00:00.000Z';
/** The fixtures name the original's return path with a placeholder token: put a signed one there. */
const withSignedOriginal = (raw: Buffer, address: string) =>
  Buffer.from(
    raw.toString('latin1').replaceAll('b.0a1b2c3d4e5f60718293a4b5c6d7e8f9.k7sx2mnpr4tqa3vd@pb-bounces.sender.test', address),
    'latin1',
  );

describe('feedback from mail to return paths', () => {
  it('a hard bounce to a signed return path names its message, with the report’s details', async () => {
    const verdict = await feedbackOf(
      { raw: fixture('postfix/failed-550-user-unknown.eml'), rcptTo: [returnPath('bounce')], receivedAt },
      tokens,
    );
    expect(verdict).toEqual({
      report: 'delivery_status',
      feedback: [
        {
          type: 'feedback.bounce',
          data: {
            messageId,
            class: 'hard',
            action: 'failed',
            format: 'rfc3464',
            status: '5.1.1',
            diagnosticCode: 'smtp; 550 5.1.1 <gone@dest.test>: Recipient address rejected: User unknown in virtual mailbox table',
            reportingMta: 'relay.postfix.test',
            remoteMta: '127.0.0.1',
            recipient: 'gone@dest.test',
            at: receivedAt,
          },
        },
      ],
    });
  });

  it('a delay is a soft bounce', async () => {
    const verdict = await feedbackOf({ raw: fixture('exim/delayed-451.eml'), rcptTo: [returnPath('bounce')], receivedAt }, tokens);
    expect(verdict.feedback).toMatchObject([{ type: 'feedback.bounce', data: { messageId, class: 'soft', action: 'delayed' } }]);
  });

  it('a forged token changes nothing, even when the report quotes a real message id', async () => {
    const forged = `b.${messageId.slice(4)}.aaaaaaaaaaaaaaaaaaaa@pb-bounces.sender.test`;
    const verdict = await feedbackOf({ raw: fixture('postfix/failed-550-user-unknown.eml'), rcptTo: [forged], receivedAt }, tokens);
    expect(verdict).toEqual({ feedback: [], ignored: 'a delivery report without a valid return-path token', report: 'delivery_status' });
  });

  it('a token for one message names that message only, whatever message the report quotes', async () => {
    const other = 'msg_ffffffffffffffffffffffffffffffff';
    const verdict = await feedbackOf(
      { raw: fixture('postfix/failed-550-user-unknown.eml'), rcptTo: [returnPath('bounce', other)], receivedAt },
      tokens,
    );
    expect(verdict.feedback.map((f) => f.data.messageId)).toEqual([other]);
  });

  it('a report sent elsewhere is matched through the signed return path of the original it quotes', async () => {
    const raw = withSignedOriginal(fixture('postfix/failed-550-user-unknown.eml'), returnPath('bounce'));
    const verdict = await feedbackOf({ raw, rcptTo: ['postmaster@pb-bounces.sender.test'], receivedAt }, tokens);
    expect(verdict.feedback).toMatchObject([{ type: 'feedback.bounce', data: { messageId, class: 'hard' } }]);
  });

  it('a complaint names its message through the signed return path, sent to or quoted', async () => {
    const signed = withSignedOriginal(fixture('complaints/arf-abuse-rfc822-headers.eml'), returnPath('bounce'));
    expect((await feedbackOf({ raw: signed, rcptTo: ['fbl@pb-bounces.sender.test'], receivedAt }, tokens)).feedback).toEqual([
      {
        type: 'feedback.complaint',
        data: { messageId, feedbackType: 'abuse', userAgent: 'MailboxFeedback/1.0', recipient: 'reader@mailbox.example', at: receivedAt },
      },
    ]);
    const redacted = fixture('complaints/arf-abuse-redacted-message.eml');
    expect((await feedbackOf({ raw: redacted, rcptTo: [returnPath('bounce')], receivedAt }, tokens)).feedback).toMatchObject([
      { type: 'feedback.complaint', data: { messageId } },
    ]);
  });

  /** The redacted fixture's original, with a List-Unsubscribe header naming `mailto`. */
  const withListUnsubscribe = (mailto: string) =>
    Buffer.from(
      fixture('complaints/arf-abuse-redacted-message.eml')
        .toString('latin1')
        .replace(
          'Subject: Your receipt\n',
          `Subject: Your receipt\nList-Unsubscribe: <https://pb.example/t/u/x>, <mailto:${mailto}?subject=unsubscribe>\n`,
        ),
      'latin1',
    );

  it("a complaint whose feedback loop dropped the return path counts by the original's signed List-Unsubscribe address", async () => {
    const verdict = await feedbackOf(
      { raw: withListUnsubscribe(returnPath('unsubscribe')), rcptTo: ['fbl@pb-bounces.sender.test'], receivedAt },
      tokens,
    );
    expect(verdict.feedback).toMatchObject([{ type: 'feedback.complaint', data: { messageId, feedbackType: 'abuse' } }]);
  });

  it('a complaint naming our message by its Message-ID alone, or by a forged token, changes nothing', async () => {
    const ignored = { feedback: [], ignored: 'a complaint without a valid return-path token', report: 'complaint' };
    // The redacted fixture quotes msg_1b2c…'s Message-ID, which every recipient, cc and bcc sees.
    const byMessageId = fixture('complaints/arf-abuse-redacted-message.eml');
    expect(await feedbackOf({ raw: byMessageId, rcptTo: ['fbl@pb-bounces.sender.test'], receivedAt }, tokens)).toEqual(ignored);
    const forged = `u.${messageId.slice(4)}.aaaaaaaaaaaaaaaaaaaa@pb-bounces.sender.test`;
    expect(await feedbackOf({ raw: withListUnsubscribe(forged), rcptTo: ['fbl@pb-bounces.sender.test'], receivedAt }, tokens)).toEqual(
      ignored,
    );
    // A bounce token in the List-Unsubscribe header is not what that header carries.
    expect(
      await feedbackOf({ raw: withListUnsubscribe(returnPath('bounce')), rcptTo: ['fbl@pb-bounces.sender.test'], receivedAt }, tokens),
    ).toEqual(ignored);
  });

  it("a report to a copy's own return path, or a mail to its unsubscribe address, names the copy", async () => {
    const ofCopy = (purpose: 'bounce' | 'unsubscribe') => `${tokens.localPart({ purpose, messageId, copy: 2 })}@pb-bounces.sender.test`;
    const bounce = await feedbackOf(
      { raw: fixture('postfix/failed-550-user-unknown.eml'), rcptTo: [ofCopy('bounce')], receivedAt },
      tokens,
    );
    expect(bounce.feedback).toMatchObject([{ type: 'feedback.bounce', data: { messageId, copy: 2, class: 'hard' } }]);
    const complaint = await feedbackOf(
      { raw: fixture('complaints/arf-abuse-redacted-message.eml'), rcptTo: [ofCopy('bounce')], receivedAt },
      tokens,
    );
    expect(complaint.feedback).toMatchObject([{ type: 'feedback.complaint', data: { messageId, copy: 2 } }]);
    const unsubscribe = await feedbackOf(
      { raw: Buffer.from('Subject: unsubscribe\r\n\r\n'), rcptTo: [ofCopy('unsubscribe')], receivedAt },
      tokens,
    );
    expect(unsubscribe.feedback).toEqual([{ type: 'feedback.unsubscribe', data: { messageId, copy: 2, at: receivedAt } }]);
  });

  it('a mail to the signed unsubscribe address unsubscribes its message’s recipient, whatever it says', async () => {
    const verdict = await feedbackOf(
      { raw: Buffer.from('Subject: unsubscribe\r\n\r\nplease\r\n'), rcptTo: [returnPath('unsubscribe')], receivedAt },
      tokens,
    );
    expect(verdict.feedback).toEqual([{ type: 'feedback.unsubscribe', data: { messageId, at: receivedAt } }]);
  });

  it('an auto-reply and an unreadable mail change nothing, and say why', async () => {
    expect(
      await feedbackOf({ raw: fixture('auto-replies/out-of-office.eml'), rcptTo: [returnPath('bounce')], receivedAt }, tokens),
    ).toEqual({
      feedback: [],
      ignored: 'an auto-reply',
      report: 'auto_reply',
    });
    expect(await feedbackOf({ raw: fixture('other/human-reply.eml'), rcptTo: [returnPath('bounce')], receivedAt }, tokens)).toMatchObject({
      feedback: [],
      report: 'unclassified',
    });
  });
});

describe('what is kept of an inbound mail', () => {
  it('the verdict, each message once, the feedback types, and never the mail itself', () => {
    const bounce = (id: string): Feedback => ({
      type: 'feedback.bounce',
      data: { messageId: id } as Extract<Feedback, { type: 'feedback.bounce' }>['data'],
    });
    const verdict: Verdict = { feedback: [bounce('msg_1'), bounce('msg_1'), bounce('msg_2')], report: 'delivery_status' };
    expect(receivedRecordOf(verdict, { receivedAt, truncated: false })).toEqual({
      receivedAt: new Date(receivedAt),
      report: 'delivery_status',
      messageIds: ['msg_1', 'msg_2'],
      feedback: ['feedback.bounce', 'feedback.bounce', 'feedback.bounce'],
      truncated: false,
    });
    expect(receivedRecordOf({ feedback: [], ignored: 'auto-reply' }, { receivedAt, truncated: true })).toEqual({
      receivedAt: new Date(receivedAt),
      ignored: 'auto-reply',
      messageIds: [],
      feedback: [],
      truncated: true,
    });
  });
});
