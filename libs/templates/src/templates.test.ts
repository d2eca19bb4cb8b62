import { compile, isStraightLine, render, RENDER_LIMITS, RenderLimitError, syntaxErrors } from './templates';

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

describe('what one render may cost', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `item ${i}` }));

  it('loops, sections and nested each still render under the limits', () => {
    const out = render(
      {
        subject: 'x',
        html: '{{#each data.rows}}<tr>{{#each this.cells}}<td>{{this}}</td>{{/each}}</tr>{{/each}}{{#data.items}}<i>{{name}}</i>{{/data.items}}',
      },
      { data: { rows: [{ cells: [1, 2] }, { cells: [3] }], items: many(2) } },
    );
    expect(out.html).toBe('<tr><td>1</td><td>2</td></tr><tr><td>3</td></tr><i>item 0</i><i>item 1</i>');
  });

  it('13.6 a template looping over a large array stops with a clear reason instead of holding the event loop', () => {
    const items = many(5_000);
    const started = performance.now();
    expect(() =>
      render({ subject: 'x', html: '{{#each data.items}}{{#each ../data.items}}{{name}}{{/each}}{{/each}}' }, { data: { items } }),
    ).toThrow(/loops more than 10000 times/);
    expect(() => render({ subject: 'x', html: '{{#data.items}}{{name}}{{/data.items}}' }, { data: { items: many(20_000) } })).toThrow(
      /loops more than 10000 times/,
    );
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('13.6 a render whose output passes 2 MB stops with a clear reason', () => {
    const big = 'x'.repeat(200 * 1024);
    expect(() =>
      render({ subject: 'x', html: '{{#each data.items}}{{../data.big}}{{/each}}' }, { data: { big, items: many(20) } }),
    ).toThrow(/renders more than 2 MB/);
  });

  it('13.6 one large value written thousands of times (no loop) stops at the output limit', () => {
    const big = '<b>'.repeat(20 * 1024); // 60 KB, 240 KB escaped
    // Compiled once per template version (the mailer keeps it); the render is what each message costs.
    const escaped = compile({ subject: 'x', html: '{{data.big}}'.repeat(100) });
    const raw = compile({ subject: '{{{data.big}}}'.repeat(100), html: 'x' });
    escaped({ data: { big: 'x' } }); // Handlebars compiles on the first render
    raw({ data: { big: 'x' } });
    const started = performance.now();
    expect(() => escaped({ data: { big } })).toThrow(/renders more than 2 MB/);
    expect(() => raw({ data: { big } })).toThrow(/renders more than 2 MB/);
    expect(performance.now() - started).toBeLessThan(500);
    // Written a few times, a large value renders as it is, escaped in the HTML part only.
    const out = render(
      { subject: '{{data.big}}', html: '<p>{{data.big}}</p>{{#if data.big}}!{{/if}}', text: '{{data.big}}' },
      { data: { big } },
    );
    expect(out.html).toBe(`<p>${'&lt;b&gt;'.repeat(20 * 1024)}</p>!`);
    expect(out.text).toBe(big);
    expect(out.subject).toBe(big);
  });

  it('tells straight-line templates (each expression evaluated once: renders go unwatched once compiled) from those with sections', () => {
    expect(isStraightLine({ subject: 'Hi {{user.name}}', html: '<p>{{lookup data "code"}} {{! note }}</p>', text: null })).toBe(true);
    expect(isStraightLine({ subject: 'x', html: '{{#each data.items}}{{this}}{{/each}}' })).toBe(false);
    expect(isStraightLine({ subject: '{{#if user.name}}Hi{{/if}}', html: '' })).toBe(false);
    expect(isStraightLine({ subject: 'x', html: '<p>ok</p>', text: '{{> footer}}' })).toBe(false);
    expect(isStraightLine({ subject: 'x', html: '{{#broken' })).toBe(false);
    // Unwatched renders still apply the output limit.
    const big = compile({ subject: 'x', html: '{{data.v}}'.repeat(3) });
    expect(big({ data: { v: 'a' } }).html).toBe('aaa');
    expect(() => big({ data: { v: 'b'.repeat(1024 * 1024) } })).toThrow(RenderLimitError);
  });

  it('13.6 the {{log}} helper is not available to templates', () => {
    const consoles = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
      jest.spyOn(console, m).mockImplementation(() => undefined),
    );
    try {
      expect(() => render({ subject: 'x', html: '{{log data.secret level="error"}}' }, { data: { secret: 's' } })).toThrow(
        /the \{\{log\}\} helper is not available/,
      );
      for (const c of consoles) expect(c).not.toHaveBeenCalled();
    } finally {
      for (const c of consoles) c.mockRestore();
    }
  });

  it('13.6 what no count bounds is bounded in time: a hostile template is refused at save and stopped at render within the limit', () => {
    // 60,000 expressions (720 KB, under the template size cap): Handlebars takes seconds to compile
    // it (≈ 4.8 s here), and its lazy compile runs at the first render.
    const hostile = { subject: 'x', html: '{{data.big}}'.repeat(60_000) };
    let started = Date.now();
    const errors = syntaxErrors(hostile);
    expect(errors).toEqual([{ pointer: '/html', message: `the template takes more than ${RENDER_LIMITS.maxMilliseconds} ms to compile` }]);
    expect(Date.now() - started).toBeLessThan(RENDER_LIMITS.maxMilliseconds * 8);
    started = Date.now();
    expect(() => compile(hostile)({ data: { big: 'b' } })).toThrow(RenderLimitError);
    expect(Date.now() - started).toBeLessThan(RENDER_LIMITS.maxMilliseconds * 8);
    // The watchdog leaves the next, ordinary render alone.
    expect(render({ subject: 'Hi {{user.name}}', html: '<p>ok</p>' }, { user: { name: 'Ann' } }).subject).toBe('Hi Ann');
  });
});
