import type { BounceClass } from '@postbus/contracts';

export type { BounceClass };

export interface SmtpCodes {
  /** The SMTP reply code (RFC 5321), e.g. 550. */
  reply?: number;
  /** The enhanced status code (RFC 3463), e.g. "5.1.1". */
  enhanced?: string;
}

/** The first SMTP reply code and enhanced status code written in a diagnostic or a notice. */
export function smtpCodes(text: string | undefined): SmtpCodes {
  if (!text) return {};
  const reply = text.match(/(?:^|[\s:(])([245]\d\d)(?=[\s-])/)?.[1];
  const enhanced = text.match(/(?:^|[\s:(#])([245]\.\d{1,3}\.\d{1,3})\b/)?.[1];
  return { ...(reply ? { reply: Number(reply) } : {}), ...(enhanced ? { enhanced } : {}) };
}

/**
 * An RFC 3464 recipient block's class. `failed` with a 5.x.x status is hard, except when the
 * remote server's own reply was temporary: an MTA that gave up retrying a 4xx (Exim reports it
 * as 5.0.0, "retry timeout exceeded") says the mailbox was unreachable for days, not that it does
 * not exist, so greylisting or a full disk does not suppress an address at once. `delayed` and
 * 4.x.x are soft; `delivered`, `relayed` and `expanded` are not bounces.
 */
export function classifyDeliveryStatus(
  action: string,
  status: string | undefined,
  diagnostic: string | undefined,
): BounceClass | undefined {
  if (action === 'delayed') return 'soft';
  if (action !== 'failed') return undefined;
  const remote = smtpCodes(diagnostic);
  const permanent = (status ?? remote.enhanced ?? String(remote.reply ?? '')).startsWith('5');
  const remoteSaidLater = remote.reply !== undefined && remote.reply < 500;
  return permanent && !remoteSaidLater ? 'hard' : 'soft';
}

/** What notices without a machine-readable part say when they carry no reply code. */
const hardPhrases =
  /\b(user unknown|unknown user|no such (user|mailbox|recipient)|does not exist|doesn't exist|recipient (address )?rejected|address rejected|invalid (recipient|mailbox|address)|mailbox unavailable|account (has been )?disabled|not our customer|unrouteable address)\b/i;
const softPhrases =
  /\b(mailbox (is )?full|over quota|quota exceeded|insufficient storage|try again later|temporar(il)?y|greylist(ed)?|deferred|delayed|still being retried|will (retry|try again))\b/i;

/**
 * The class of a plain-text bounce (older MTAs, some providers): the reply code in the notice
 * when there is one, else what it says; undefined when neither tells.
 */
export function classifyNotice(text: string): (SmtpCodes & { class: BounceClass }) | undefined {
  const codes = smtpCodes(text);
  const first = codes.reply !== undefined ? String(codes.reply)[0] : codes.enhanced?.[0];
  if (first === '5') return { ...codes, class: 'hard' };
  if (first === '4') return { ...codes, class: 'soft' };
  if (hardPhrases.test(text)) return { ...codes, class: 'hard' };
  if (softPhrases.test(text)) return { ...codes, class: 'soft' };
  return undefined;
}
