import type { RenderContext } from './templates';

/** How many items every list of a sample context holds. */
export const SAMPLE_LIST_ITEMS = 10;

/** What every value of a sample context reads as, written out. */
const SAMPLE_TEXT = 'sample';

/**
 * A value that is everything a template may ask of it: written out it reads "sample", tested it
 * is true, looped over it is a list of `items` such values, and any property of it is another one
 * (the same one each time it is asked, so a nested loop over `../list` costs what real data would).
 */
function sampleValue(items: number): unknown {
  const target: unknown[] = Array.from({ length: items }, () => undefined);
  const children = new Map<string, unknown>();
  const child = (key: string): unknown => {
    let value = children.get(key);
    if (value === undefined) children.set(key, (value = sampleValue(items)));
    return value;
  };
  return new Proxy(target, {
    get(t, key, receiver) {
      if (key === Symbol.toPrimitive) return () => SAMPLE_TEXT;
      // Handlebars writes a value with toHTML when it has one: a sample has none, so it is escaped text.
      if (typeof key === 'symbol' || key === 'length' || key === 'toHTML') return Reflect.get(t, key, receiver) as unknown;
      return child(key);
    },
    has: (t, key) => typeof key === 'string' || Reflect.has(t, key),
    getOwnPropertyDescriptor(t, key) {
      const own = Reflect.getOwnPropertyDescriptor(t, key);
      if (key === 'length' || key === 'toHTML' || typeof key === 'symbol') return own;
      return { value: child(key), writable: true, enumerable: true, configurable: true };
    },
  });
}

/**
 * The context a template is measured with when it is saved, before any real data exists: every
 * value present, every condition true, every list of SAMPLE_LIST_ITEMS items, to any depth. Render
 * it as it is (PreparedTemplate.render's `sample`): it is lazy, and copying it would never end.
 */
export function sampleContext(items = SAMPLE_LIST_ITEMS): RenderContext {
  return { user: sampleValue(items), data: sampleValue(items) };
}
