import { templateProblems, syntaxErrors } from './templates';
import { renderErrorSite, templateReads, templateVariables } from './variables';

const variablesOf = (source: string) => templateReads(source).variables;

describe('the variables a template reads', () => {
  it('names user and data paths, each once, sorted', () => {
    expect(variablesOf('{{data.plan}} {{user.name}} {{{user.name}}} {{other}}')).toEqual(['data.plan', 'user.name']);
  });

  it('reads paths inside each and with relative to their block, this and . as the item, ../ one level up', () => {
    const source =
      '{{#each data.items}}{{name}} {{this.price}} {{.}} {{../user.email}} {{@index}}{{/each}}' +
      '{{#with data.order}}{{id}}{{#each lines}}{{sku}}{{../id}}{{/each}}{{/with}}';
    expect(variablesOf(source)).toEqual([
      'data.items',
      'data.items.name',
      'data.items.price',
      'data.order',
      'data.order.id',
      'data.order.lines',
      'data.order.lines.sku',
      'user.email',
    ]);
  });

  it('counts conditions, helper parameters, hash values, sub-expressions and block params as reads, never literals or @-variables', () => {
    const source =
      '{{#if user.vip}}VIP{{else}}{{data.fallback}}{{/if}}{{#unless data.off}}on{{/unless}}' +
      '{{formatDate data.at "short" tz=user.tz}}{{lookup data.names (lookup user "key")}}' +
      '{{#each data.rows as |row i|}}{{row.total}}{{i}}{{@first}}{{/each}}{{@root.user.id}}{{"data.literal"}}';
    expect(variablesOf(source)).toEqual([
      'data.at',
      'data.fallback',
      'data.names',
      'data.off',
      'data.rows',
      'data.rows.total',
      'user.id',
      'user.tz',
      'user.vip',
    ]);
  });

  it('reads a section as the context of its content', () => {
    expect(variablesOf('{{#data.items}}<i>{{name}}</i>{{/data.items}}{{^user.name}}anonymous{{/user.name}}')).toEqual([
      'data.items',
      'data.items.name',
      'user.name',
    ]);
  });

  it('names the helpers called, where', () => {
    expect(templateReads('a\n  {{formatDate data.at}}{{#each data.x}}{{/each}}{{plain}}').helperCalls).toEqual([
      { name: 'formatDate', line: 2, column: 3 },
      { name: 'each', line: 2, column: 25 },
    ]);
  });

  it('walks a deeply nested template without recursion', () => {
    const depth = 300; // Handlebars' own parse recurses as deep
    const source = '{{#with data.a}}' + '{{#with a}}'.repeat(depth - 1) + '{{x}}' + '{{/with}}'.repeat(depth);
    expect(variablesOf(source)).toContain(`data.${'a.'.repeat(depth)}x`);
  });

  it('gathers every part that parses, leaving out one that does not', () => {
    expect(templateVariables({ subject: 'Hi {{user.name}}', html: '{{data.x', text: '{{data.y}}' })).toEqual(['data.y', 'user.name']);
  });
});

describe('where a template is wrong', () => {
  it('locates a parse error by part, line (from 1) and column (from 1) within the part', () => {
    expect(templateProblems({ subject: 'ok', html: '<p>\n<b>{{user.name}</b>\n' })).toEqual([
      { part: 'html', line: 2, column: 15, message: expect.stringMatching(/^Expecting .*got 'INVALID'$/), kind: 'syntax' },
    ]);
    expect(templateProblems({ subject: 'a', html: 'x\n  <i>{{#if a}}b{{/each}}</i>' })).toEqual([
      { part: 'html', line: 2, column: 9, message: "if doesn't match each", kind: 'syntax' },
    ]);
  });

  it('finds the column past a long line and past the lines before it', () => {
    const before = 'x'.repeat(50);
    const [problem] = templateProblems({ subject: 'a', html: `${'y'.repeat(30)}\n${before}{{#each data.items}}{{name}}` });
    expect(problem).toMatchObject({ line: 2, column: before.length + 28 + 1 });
    // A long line of the very character under the marker: every place is a candidate, each checked in constant time.
    const long = 'x'.repeat(100_000);
    const started = performance.now();
    expect(templateProblems({ subject: 'a', html: `${long}{{x y=}}` })[0]).toMatchObject({ line: 1, column: long.length + 7 });
    expect(performance.now() - started).toBeLessThan(1000);
    // At the end of the input Handlebars marks the last token read.
    const [short] = templateProblems({ subject: 'abc\n{{x', html: '' });
    expect(short).toMatchObject({ part: 'subject', line: 2, column: 3 });
  });

  it('keeps the problem body of a syntax error as it was: part, line, column, expectation', () => {
    expect(syntaxErrors({ subject: 'a', html: 'x\n{{#if a}}' })).toEqual([
      { pointer: '/html', message: expect.stringMatching(/^template syntax error: line 2, column \d+, Expecting/) },
    ]);
  });

  it('places a render error at the first call of the helper its message names', () => {
    const parts = { subject: '{{shout user.name}}', html: '<p>\n {{log data.x}}</p>' };
    expect(renderErrorSite(parts, 'the {{log}} helper is not available in templates')).toEqual({ part: 'html', line: 2, column: 2 });
    expect(renderErrorSite(parts, 'Missing helper: "shout"')).toEqual({ part: 'subject', line: 1, column: 1 });
    expect(renderErrorSite(parts, 'something else')).toBeUndefined();
  });
});
