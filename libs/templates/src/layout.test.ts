import { compile, layoutProblems, limitsWithin, PreparedTemplate, render, TemplateSyntaxError, type LayoutParts } from './templates';
import { renderErrorSite, templateVariables } from './variables';

const layout: LayoutParts = {
  html: '<html><body><header>Hello {{user.name}}</header>\n{{{content}}}\n<footer>{{data.company}}</footer></body></html>',
  text: 'Hello {{user.name}}\n{{{content}}}\n-- {{data.company}}',
};
const context = { user: { name: 'Ann' }, data: { company: 'Acme <b>Ltd</b>', code: 'A&1' } };

describe('a layout around a template', () => {
  it('wraps the rendered html and text in order: header, body, footer', () => {
    const out = render(
      { subject: 'Code {{data.code}}', html: '<p>Your code: {{data.code}}</p>', text: 'Your code: {{data.code}}', layout },
      context,
    );
    expect(out.subject).toBe('Code A&1');
    expect(out.html).toBe(
      '<html><body><header>Hello Ann</header>\n<p>Your code: A&amp;1</p>\n<footer>Acme &lt;b&gt;Ltd&lt;/b&gt;</footer></body></html>',
    );
    expect(out.text).toBe('Hello Ann\nYour code: A&1\n-- Acme <b>Ltd</b>');
  });

  it('derives the text from the wrapped html when the template has no text part', () => {
    const out = render({ subject: 'x', html: '<p>Your code: {{data.code}}</p>', layout }, context);
    expect(out.text).toBe('Hello Ann\n\nYour code: A&1\n\nAcme <b>Ltd</b>');
  });

  it("leaves a template's text unwrapped when the layout has no text", () => {
    const out = render({ subject: 'x', html: '<p>{{data.code}}</p>', text: 'Code {{data.code}}', layout: { html: layout.html } }, context);
    expect(out.text).toBe('Code A&1');
    expect(out.html).toContain('<header>Hello Ann</header>\n<p>A&amp;1</p>\n<footer>');
  });

  it('reads user and data in the layout with the same escaping as the body, the body inserted as it rendered', () => {
    const out = render(
      {
        subject: 'x',
        html: '<i>{{user.name}}</i>',
        layout: {
          html: '{{#if data.vip}}<b>{{user.name}}</b>{{/if}}{{{content}}}{{#each data.links}}<a href="{{this}}">{{@index}}</a>{{/each}}',
        },
      },
      { user: { name: '<script>' }, data: { vip: true, links: ['https://a.example/', 'javascript:alert(1)'] } },
    );
    expect(out.html).toBe('<b>&lt;script&gt;</b><i>&lt;script&gt;</i><a href="https://a.example/">0</a><a href="#">1</a>');
  });

  it("counts the layout's loops and output in the render's budget", () => {
    const body = 'x'.repeat(64 * 1024);
    const writesTheBodyOften = { subject: 'x', html: '{{{data.body}}}', layout: { html: '{{{content}}}'.repeat(100) } };
    expect(() => render(writesTheBodyOften, { data: { body } })).toThrow(/renders more than 2 MB/);
    const loops = { subject: 'x', html: 'y', layout: { html: '{{{content}}}{{#each data.a}}{{#each ../data.a}}.{{/each}}{{/each}}' } };
    expect(() => render(loops, { data: { a: Array.from({ length: 200 }, (_, i) => i) } })).toThrow(/loops more than 10000 times/);
  });

  it('renders the same whether the slot stands at the top of the layout (compiled with the body) or in a block', () => {
    const body = {
      subject: 'x',
      html: '<ul>{{#each data.items as |item|}}\n  <li>{{~item.name~}}</li>{{/each}}</ul>{{#with user}}<p>{{name}} {{../data.company}}</p>{{/with}}{{content}}',
      text: '{{#each data.items}}- {{name}}\n{{/each}}{{@root.user.name}}',
    };
    const wrap = (slot: string): LayoutParts => ({
      html: `<html><meta name="viewport" content="width=device-width">\n  <b>{{user.name}}</b>\n${slot}\n</html>`,
      text: `{{data.company}}\n${slot}\n--`,
    });
    const items = { data: { ...context.data, items: [{ name: 'a<b' }, { name: 'c' }] }, user: context.user };
    const inOne = render({ ...body, layout: wrap('{{{content}}}') }, items);
    const apart = render({ ...body, layout: wrap('{{#if user}}{{{content}}}{{/if}}') }, items);
    expect(inOne).toEqual(apart);
    expect(inOne.html).toBe(
      '<html><meta name="viewport" content="width=device-width">\n  <b>Ann</b>\n<ul>\n  <li>a&lt;b</li>\n  <li>c</li></ul><p>Ann Acme &lt;b&gt;Ltd&lt;/b&gt;</p>\n</html>',
    );
    expect(inOne.text).toBe('Acme <b>Ltd</b>\n- a<b\n- c\nAnn\n--');
  });

  it("names the layout's syntax errors /layout/html and /layout/text", () => {
    const prepared = new PreparedTemplate({ subject: 'x', html: 'y', layout: { html: '<p>\n{{#if a}}{{{content}}}', text: '{{content' } });
    const thrown = (() => {
      try {
        return prepared.render({}, limitsWithin(1000));
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(TemplateSyntaxError);
    expect((thrown as TemplateSyntaxError).errors).toEqual([
      { pointer: '/layout/html', message: expect.stringMatching(/^template syntax error: line 2/) },
      { pointer: '/layout/text', message: expect.stringMatching(/^template syntax error: line 1/) },
    ]);
  });

  it('refuses a layout around an MJML template', () => {
    expect(() => new PreparedTemplate({ subject: 'x', html: '<mjml></mjml>', format: 'mjml', layout })).toThrow(
      'a layout cannot wrap an MJML template',
    );
  });

  it("gathers the layout's variables with the template's, content not among them", () => {
    expect(templateVariables({ subject: 'x', html: '{{data.code}}', layout })).toEqual(['data.code', 'data.company', 'user.name']);
  });

  it('places a render error in the layout when the helper it names is called there', () => {
    const parts = { subject: 'x', html: '<p>ok</p>', layout: { html: '{{{content}}}\n  {{shout user.name}}' } };
    expect(renderErrorSite(parts, 'Missing helper: "shout"')).toEqual({ part: 'html', line: 2, column: 3, inLayout: true });
    expect(() => compile(parts)(context)).toThrow(/Missing helper: "shout"/);
  });
});

describe('what keeps a layout from being saved', () => {
  it('accepts a layout with {{{content}}} once in its html and its text (or no text)', () => {
    expect(layoutProblems(layout)).toEqual([]);
    expect(layoutProblems({ html: '<div>{{{ content }}}</div>', text: null })).toEqual([]);
    expect(layoutProblems({ html: '<div>{{{content}}}</div>', text: '' })).toEqual([]);
  });

  it('names the field without {{{content}}} exactly once: none, or where the second one is', () => {
    expect(layoutProblems({ html: '<div>{{content}}</div>', text: 'a\n{{{content}}} b {{{content}}}' })).toEqual([
      { part: 'html', line: null, column: null, message: 'must contain {{{content}}} exactly once (it does not)', kind: 'slot' },
      { part: 'text', line: 2, column: 17, message: 'must contain {{{content}}} exactly once (it does 2 times)', kind: 'slot' },
    ]);
  });

  it('locates syntax errors as a template’s are located', () => {
    expect(layoutProblems({ html: '{{{content}}}\n<b>{{user.name}</b>', text: '{{{content}}}{{#if x}}' })).toEqual([
      { part: 'html', line: 2, column: 15, message: expect.stringMatching(/^Expecting .*got 'INVALID'$/), kind: 'syntax' },
      { part: 'text', line: 1, column: expect.any(Number), message: expect.stringMatching(/^Expecting/), kind: 'syntax' },
    ]);
  });
});
