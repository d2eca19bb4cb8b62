import { render, syntaxErrors } from './templates';

describe('templates', () => {
  it('locates a syntax error by part, line and column', () => {
    const errors = syntaxErrors({ subject: 'Hi {{user.name}}', html: '<p>Hello</p>\n<p>{{#if data.vip}}VIP</p>' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ pointer: '/html', message: expect.stringMatching(/line 2.*Expecting/) });
  });

  it('renders user and data, escaping HTML in the HTML part only', () => {
    const out = render(
      { subject: 'Welcome, {{user.name}} & co', html: '<p>Hi {{user.name}}, your code is {{data.code}}</p>' },
      { user: { name: '<b>Ann</b>' }, data: { code: 'A&1' } },
    );
    expect(out.subject).toBe('Welcome, <b>Ann</b> & co');
    expect(out.html).toBe('<p>Hi &lt;b&gt;Ann&lt;/b&gt;, your code is A&amp;1</p>');
    expect(out.text).toBe('Hi <b>Ann</b>, your code is A&1');
  });
});
