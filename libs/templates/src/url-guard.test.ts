import Handlebars from 'handlebars';
import { render } from './templates';
import { guardUrls, isSafeUrl } from './url-guard';

describe('links in rendered HTML keep safe schemes only (7e)', () => {
  const link = (url: string) => render({ subject: 'x', html: '<a href="{{data.url}}">go</a>' }, { data: { url } }).html;
  const image = (url: string) => render({ subject: 'x', html: '<img src="{{data.url}}" alt="">' }, { data: { url } }).html;
  // Triple braces write the value unescaped: what a character reference in it means is the reader's parser's to decide.
  const rawLink = (url: string) => render({ subject: 'x', html: '<a href={{{data.url}}}>go</a>' }, { data: { url } }).html;

  it.each([
    'javascript:alert(document.cookie)',
    'JaVaScRiPt:alert(1)',
    '  javascript:alert(1)',
    '\tjavascript:alert(1)',
    '\u0001javascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    'vbscript:msgbox(1)',
    'VBScript:msgbox(1)',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'data:image/png;base64,iVBORw0KGgo=', // an image, but not as a link
    'file:///etc/passwd',
  ])('when data puts %j in an href, the link goes to "#"', (url) => {
    expect(link(url)).toBe('<a href="#">go</a>');
  });

  it.each([
    '&#106;avascript:alert(1)',
    '&#x6A;avascript:alert(1)',
    '&#106avascript:alert(1)', // no semicolon: browsers decode it, some parsers do not
    'javascript&colon;alert(1)',
    'javascript&#58;alert(1)',
    'javascript&#58alert(1)',
    '&#32;javascript:alert(1)',
    'java&Tab;script:alert(1)',
    'java&#x0A;script:alert(1)',
  ])('when an unescaped value %j hides the scheme behind character references, the link goes to "#"', (url) => {
    expect(rawLink(url)).toBe('<a href="#">go</a>');
  });

  it.each([
    'javascript:alert(1)',
    'vbscript:x',
    'data:text/html,<script>alert(1)</script>',
    'data:image/svg+xml;base64,PHN2Zz4=',
    'about:blank',
  ])('when data puts %j in a src, the source is emptied', (url) => {
    expect(image(url)).toBe('<img src="" alt="">');
  });

  it.each([
    'https://example.com/a?b=1&c=2',
    'http://example.com/',
    'HTTPS://EXAMPLE.COM/',
    'mailto:ann@example.com?subject=Hi',
    'tel:+4912345',
    '/relative/path?x=1',
    '#top',
    '?q=1',
    'page.html',
    '//example.com/protocol-relative',
  ])('an href of %j is kept (escaped as usual)', (url) => {
    expect(link(url)).toBe(`<a href="${Handlebars.escapeExpression(url)}">go</a>`);
  });

  it.each([
    'https://example.com/logo.png',
    'cid:logo@postbus',
    'data:image/png;base64,iVBORw0KGgo=',
    'data:image/jpeg;base64,/9j/4AAQ',
    'img/logo.png',
  ])('a src of %j is kept', (url) => {
    expect(image(url)).toBe(`<img src="${Handlebars.escapeExpression(url)}" alt="">`);
  });

  it('guards every URL attribute, quoted or not, and nothing else of the HTML changes', () => {
    const html = [
      '<!doctype html><html><body style="color: #222">',
      '<a HREF=javascript:x title="javascript:kept as text">a</a>',
      "<a href='JAVASCRIPT:y' class=x>b</a>",
      '<form action="javascript:z"><button formaction=vbscript:w>c</button></form>',
      '<svg><a xlink:href="javascript:v">d</a></svg>',
      '<table background="javascript:u"><tr><td>e</td></tr></table>',
      '<img srcset="https://a.example/1.png 1x, javascript:t 2x" src="https://a.example/1.png">',
      '<object data="javascript:s"></object>',
      '<p data="javascript:not-a-url">javascript: in text stays</p>',
      '<!--[if mso]><v:roundrect href="javascript:r"><![endif]-->',
      '<!-- an ordinary comment: <a href="javascript:q"> -->',
      '<a href="https://ok.example/?a=1&amp;b=2">ok</a>',
      '</body></html>',
    ].join('\n');
    expect(guardUrls(html)).toBe(
      [
        '<!doctype html><html><body style="color: #222">',
        '<a HREF="#" title="javascript:kept as text">a</a>',
        "<a href='#' class=x>b</a>",
        '<form action="#"><button formaction="#">c</button></form>',
        '<svg><a xlink:href="#">d</a></svg>',
        '<table background=""><tr><td>e</td></tr></table>',
        '<img srcset="" src="https://a.example/1.png">',
        '<object data=""></object>',
        '<p data="javascript:not-a-url">javascript: in text stays</p>',
        '<!--[if mso]><v:roundrect href="#"><![endif]-->',
        '<!-- an ordinary comment: <a href="javascript:q"> -->',
        '<a href="https://ok.example/?a=1&amp;b=2">ok</a>',
        '</body></html>',
      ].join('\n'),
    );
  });

  it('the text part derived from the HTML shows the guarded link, and a written text part is left as written', () => {
    const out = render({ subject: 'x', html: '<a href="{{data.url}}">pay</a>' }, { data: { url: 'javascript:alert(1)' } });
    expect(out.text).not.toContain('javascript');
    const withText = render(
      { subject: 'x', html: '<a href="{{data.url}}">pay</a>', text: 'Pay: {{data.url}}' },
      { data: { url: 'https://pay.example/' } },
    );
    expect(withText.text).toBe('Pay: https://pay.example/');
  });

  it('HTML whose every URL attribute is plainly http(s) is left as it is without the full pass; any other shape gets it', () => {
    const plain = '<a href="https://a.example/?x=1&amp;y=2">a</a><img SRC=\'http://b.example/i.png\'><p>data and href as words</p>';
    expect(guardUrls(plain)).toBe(plain);
    // An attribute the quick look would see as text still reaches the full pass.
    expect(guardUrls('<a href="https://ok.example/">ok</a><a/href=javascript:x>no</a>')).toBe(
      '<a href="https://ok.example/">ok</a><a/href="#">no</a>',
    );
    expect(guardUrls('<a\nhref\n=\n"https://ok.example/">ok</a><a hReF = " java&#x73;cript:x">no</a>')).toBe(
      '<a\nhref\n=\n"https://ok.example/">ok</a><a hReF = "#">no</a>',
    );
  });

  it('isSafeUrl tells links from resources', () => {
    expect(isSafeUrl('data:image/gif;base64,R0lGOD', 'resource')).toBe(true);
    expect(isSafeUrl('data:image/gif;base64,R0lGOD', 'navigation')).toBe(false);
    expect(isSafeUrl('cid:part1', 'navigation')).toBe(false);
    expect(isSafeUrl('tel:+1', 'resource')).toBe(false);
  });
});
