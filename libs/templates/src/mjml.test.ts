import { TemplateEngine } from './engine';
import { blankMustaches } from './mjml';
import { compile, RenderLimitError, TemplateSyntaxError, type TemplateParts } from './templates';

/** An MJML mail: a heading, a paragraph with the user's name, a loop of rows, a button. */
const welcome: TemplateParts = {
  subject: 'Welcome, {{user.name}}',
  format: 'mjml',
  html: [
    '<mjml>',
    '  <mj-body>',
    '    <mj-section>',
    '      <mj-column width="{{data.width}}">',
    '        <mj-text font-size="20px">Welcome to {{data.product}}</mj-text>',
    '        <mj-text>Hi {{user.name}}{{!-- the name is escaped --}}</mj-text>',
    '        {{#each data.rows}}<mj-text>{{this}}</mj-text>{{/each}}',
    '        <mj-button href="{{data.url}}">Confirm</mj-button>',
    '      </mj-column>',
    '    </mj-section>',
    '  </mj-body>',
    '</mjml>',
  ].join('\n'),
};
const context = {
  user: { name: '<b>Ann</b>' },
  data: { product: 'Benchly', width: '100%', rows: ['one', 'two'], url: 'https://app.example/confirm?a=1&b=2' },
};

/** The syntax error that measuring `parts` threw. */
async function measureFailure(engine: TemplateEngine, parts: TemplateParts): Promise<TemplateSyntaxError> {
  const outcome = await engine.measure(parts, 'acme').then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(TemplateSyntaxError);
  return outcome as TemplateSyntaxError;
}

const mjmlOf = (...bodyLines: string[]): TemplateParts => ({
  subject: 'x',
  format: 'mjml',
  html: ['<mjml>', '<mj-body>', ...bodyLines, '</mj-body>', '</mjml>'].join('\n'),
});

describe('MJML templates, rendered in the pool', () => {
  let engine: TemplateEngine;

  beforeAll(() => {
    // Patient: the first MJML job of a thread loads mjml on a busy 2-core host.
    engine = new TemplateEngine({ threads: 1, poolTimeMs: 10_000 });
  });

  afterAll(async () => {
    await engine.close();
  });

  it('compiles to HTML tables with no mj- tag, the values Handlebars inserted escaped, never on the caller’s thread', async () => {
    const before = { ...engine.stats };
    const out = await engine.render({ key: 'welcome:1', parts: welcome, cheap: true }, context, 'acme');
    expect(out.subject).toBe('Welcome, <b>Ann</b>');
    expect(out.html).toMatch(/^<!doctype html>/i);
    expect(out.html).toContain('<table');
    expect(out.html).not.toMatch(/<\/?mj-/);
    // No web font the template did not declare: MJML's default would link Google Fonts.
    expect(out.html).not.toContain('fonts.googleapis.com');
    expect(out.html).toContain('Hi &lt;b&gt;Ann&lt;/b&gt;');
    expect(out.html).not.toContain('<b>Ann</b>');
    // Handlebars' escaping, as in any template's HTML.
    expect(out.html).toContain('href="https://app.example/confirm?a&#x3D;1&amp;b&#x3D;2"');
    expect(out.html.indexOf('>one<')).toBeLessThan(out.html.indexOf('>two<'));
    // The text is derived from the compiled HTML: words, no style sheet.
    expect(out.text).toContain('Welcome to Benchly');
    expect(out.text).toContain('Hi <b>Ann</b>');
    expect(out.text).not.toMatch(/[{}]/);
    expect(engine.stats).toEqual({ onThisThread: before.onThisThread, inPool: before.inPool + 1, poolJobs: before.poolJobs + 1 });
  });

  it("keeps only safe links in the compiled HTML, and a template's own text part as it is", async () => {
    const parts = {
      ...mjmlOf('<mj-section><mj-column><mj-button href="{{data.url}}">Go</mj-button></mj-column></mj-section>'),
      text: 'Go: {{data.url}}',
    };
    const out = await engine.render({ key: 'unsafe:1', parts }, { data: { url: 'javascript:alert(1)' } }, 'acme');
    expect(out.html).toContain('href="#"');
    expect(out.html).not.toContain('javascript:');
    expect(out.text).toBe('Go: javascript:alert(1)');
  });

  it('measures a valid MJML template as not cheap (it renders in the pool only)', async () => {
    const before = { ...engine.stats };
    await expect(engine.measure(welcome, 'acme')).resolves.toMatchObject({ cheap: false });
    expect(engine.stats.onThisThread).toBe(before.onThisThread);
    expect(engine.stats.poolJobs).toBe(before.poolJobs + 1);
  });

  it('refuses at measure an mj-text directly under mj-body, naming its line in the source', async () => {
    const error = await measureFailure(
      engine,
      mjmlOf('{{#if user.name}}', '<mj-text>Hi {{user.name}}</mj-text>', '{{/if}}', '<mj-section><mj-column></mj-column></mj-section>'),
    );
    expect(error.errors).toEqual([
      { pointer: '/html', message: expect.stringMatching(/^MJML: line 4: mj-text cannot be used inside mj-body/) },
    ]);
    expect(error.problems).toEqual([
      {
        part: 'html',
        line: 4,
        column: null,
        message: expect.stringMatching(/^MJML: mj-text cannot be used inside mj-body/),
        kind: 'syntax',
      },
    ]);
  });

  it('refuses an unknown tag, and a source without its <mjml> root, by line', async () => {
    const unknown = await measureFailure(
      engine,
      mjmlOf('<mj-section>', '<mj-column>', '<mj-texte>typo</mj-texte>', '</mj-column>', '</mj-section>'),
    );
    expect(unknown.problems).toEqual([expect.objectContaining({ part: 'html', line: 5, message: expect.stringContaining('mj-texte') })]);
    const rootless = await measureFailure(engine, { subject: 'x', format: 'mjml', html: '<!-- a mail -->\n\n<mj-body></mj-body>' });
    expect(rootless.errors).toEqual([{ pointer: '/html', message: 'MJML: line 3: the template must start with its <mjml> root' }]);
  });

  it('reports Handlebars syntax errors of an MJML template as a template’s', async () => {
    const error = await measureFailure(engine, mjmlOf('<mj-section>{{#if x}}</mj-section>'));
    expect(error.errors).toEqual([{ pointer: '/html', message: expect.stringMatching(/^template syntax error: line/) }]);
  });

  it('refuses the synchronous renderer, and a layout around MJML', async () => {
    expect(() => compile(welcome)).toThrow(/MJML template compiles asynchronously/);
    await expect(engine.render({ key: 'framed:1', parts: { ...welcome, layout: { html: '{{{content}}}' } } }, {}, 'acme')).rejects.toThrow(
      'a layout cannot wrap an MJML template',
    );
  });
});

describe('an MJML template past the pool’s limits', () => {
  it('fails with a RenderLimitError naming the limit, and the next job runs: its new thread loads mjml outside the job’s 100 ms', async () => {
    const engine = new TemplateEngine({ threads: 1, poolTimeMs: 100 });
    try {
      const section =
        '<mj-section><mj-column><mj-text>{{user.name}} {{data.x}}</mj-text><mj-button href="https://a.example/">Go</mj-button></mj-column></mj-section>';
      const huge = mjmlOf(`{{#each data.rows}}${section}{{/each}}`);
      const rows = Array.from({ length: 1_500 }, (_, i) => i);
      const outcome = await engine
        .render({ key: 'huge:1', parts: huge }, { data: { rows, x: 'y' } }, 'acme')
        .catch((error: unknown) => error);
      expect(outcome).toBeInstanceOf(RenderLimitError);
      expect((outcome as Error).message).toMatch(/^the template (takes more than 100 ms|needs more than 128 MB) to (compile and )?render$/);
      const out = await engine.render({ key: 'small:1', parts: mjmlOf(section) }, { user: { name: 'Ann' } }, 'acme');
      expect(out.html).toContain('Ann');
    } finally {
      await engine.close();
    }
  });
});

describe('the MJML that is validated: the source with its Handlebars blanked out', () => {
  it('blanks each mustache and each attribute whose value holds one, keeping every line where it was', () => {
    const source = '<mjml>\n<mj-column width="{{data.w}}" padding="4px">{{#if a}}\n<mj-text>{{{b}}} {{! c }}</mj-text>{{/if}}\n</mjml>';
    const blanked = blankMustaches(source);
    expect(blanked).toHaveLength(source.length);
    expect(blanked.split('\n').map((line) => line.trimEnd())).toEqual([
      '<mjml>',
      '<mj-column                    padding="4px">',
      '<mj-text>                </mj-text>',
      '</mjml>',
    ]);
  });

  it('reads quotes inside a mustache, and comments with braces or apostrophes, as the mustache’s', () => {
    expect(blankMustaches('<a href="x">{{t "}}"}}</a>{{!-- }} don\'t --}}.')).toBe(`<a href="x">${' '.repeat(10)}</a>${' '.repeat(19)}.`);
  });

  it('blanks a long source in linear time', () => {
    const long = `<mj-text a="${'{{x}}'.repeat(50_000)}">${'{{y}} '.repeat(50_000)}</mj-text>`;
    const started = performance.now();
    expect(blankMustaches(long)).toMatch(/^<mj-text {20,}> {20,}<\/mj-text>$/);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
