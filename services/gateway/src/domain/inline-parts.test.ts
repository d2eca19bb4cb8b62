import { embedInlineParts, isFrameableInline, referencedContentIds } from './inline-parts';

describe('inline parts in the email frame', () => {
  const html = `<p><img src="cid:logo@shop" alt=""><img src='cid:other'><a href="cid:logo@shop">x</a> cid:logo@shop</p>`;

  it('finds the content ids the HTML refers to in attribute values', () => {
    expect(referencedContentIds(html)).toEqual(new Set(['logo@shop', 'other']));
  });

  it('turns the references to the given parts into data: URLs and leaves the others', () => {
    const out = embedInlineParts(html, new Map([['logo@shop', { contentType: 'image/png', bytes: Buffer.from('png') }]]));
    expect(out).toBe(
      `<p><img src="data:image/png;base64,cG5n" alt=""><img src='cid:other'><a href="data:image/png;base64,cG5n">x</a> cid:logo@shop</p>`,
    );
  });

  it('embeds raster images with a content id up to 2 MB, nothing else', () => {
    expect(isFrameableInline({ content_type: 'image/png', size: 10, content_id: 'a' })).toBe(true);
    expect(isFrameableInline({ content_type: 'image/png', size: 10 })).toBe(false);
    expect(isFrameableInline({ content_type: 'image/svg+xml', size: 10, content_id: 'a' })).toBe(false);
    expect(isFrameableInline({ content_type: 'image/jpeg', size: 3 * 1024 * 1024, content_id: 'a' })).toBe(false);
  });
});
