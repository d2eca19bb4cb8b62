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
