/**
 * The message both sides of the mailer benchmark send: Postbus renders this template from a trigger, the direct
 * nodemailer baseline renders the same template with the same renderer (@postbus/templates) and signs it the same
 * way (RSA-2048 DKIM), with the same headers.
 */

export const SENDER_DOMAIN = 'mail.bench.example';
export const FROM_NAME = 'Bench Sender';
export const FROM_ADDRESS = `hello@${SENDER_DOMAIN}`;

/** No text part: as with most templates, it is derived from the rendered HTML on each send. */
export const BENCH_TEMPLATE = {
  subject: 'Confirm your address, {{user.name}}',
  html: [
    '<!doctype html><html><body style="font-family: Helvetica, Arial, sans-serif; color: #222">',
    '<h1 style="font-size: 20px">Welcome to {{data.product}}, {{user.name}}</h1>',
    '<p>Hi {{user.name}}, thanks for signing up. Your confirmation code is <strong>{{data.code}}</strong>;',
    'it expires in 15 minutes.</p>',
    '<p><a href="https://app.bench.example/confirm?code={{data.code}}">Confirm your address</a></p>',
    '<table role="presentation"><tr><td>Plan</td><td>{{user.plan}}</td></tr><tr><td>Account</td><td>{{user.email}}</td></tr></table>',
    '<p>If you did not ask for this, you can ignore this email.</p>',
    '<p style="color: #888; font-size: 12px">{{data.product}}, 1 Example Street, Springfield</p>',
    '</body></html>',
  ].join('\n'),
};

/** The recipient of the n-th message of a run tagged `tag`. */
export const userOf = (tag: string, n: number) => ({ email: `${tag}-${n}@rcpt.bench.example`, name: 'Ann', plan: 'pro' });

export const dataOf = (n: number) => ({ product: 'Benchly', code: String(100_000 + (n % 900_000)) });

/**
 * The n-th content mail of a run tagged `tag` (the SMTP bench's, through SMTP submission and through
 * POST …/emails/send alike): the template's message as an app that makes its own HTML would send it, with both
 * bodies, no tracking. The HTML is the bench template with the values put in (about 1 KB).
 */
export function contentMailOf(tag: string, n: number): { from: string; to: string; subject: string; html: string; text: string } {
  const user = userOf(tag, n);
  const data = dataOf(n);
  const fill = (text: string) =>
    text
      .replace(/\{\{user\.name\}\}/g, user.name)
      .replace(/\{\{user\.plan\}\}/g, user.plan)
      .replace(/\{\{user\.email\}\}/g, user.email)
      .replace(/\{\{data\.product\}\}/g, data.product)
      .replace(/\{\{data\.code\}\}/g, data.code);
  return {
    from: `${FROM_NAME} <${FROM_ADDRESS}>`,
    to: user.email,
    subject: fill(BENCH_TEMPLATE.subject),
    html: fill(BENCH_TEMPLATE.html),
    text: fill(
      [
        'Welcome to {{data.product}}, {{user.name}}',
        '',
        'Hi {{user.name}}, thanks for signing up. Your confirmation code is {{data.code}}; it expires in 15 minutes.',
        '',
        'Confirm your address: https://app.bench.example/confirm?code={{data.code}}',
        '',
        'Plan: {{user.plan}}',
        'Account: {{user.email}}',
        '',
        'If you did not ask for this, you can ignore this email.',
        '{{data.product}}, 1 Example Street, Springfield',
      ].join('\n'),
    ),
  };
}
