import { isUtf8 } from 'node:buffer';
import type { TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { DOCUMENT_KEY_PATTERN, FIELD_NAME_PATTERN, inspectDocument, type DocumentLimits } from '@postbus/contracts';
import { PayloadTooLargeError, type FieldError } from '@postbus/errors';

// verbose: errors carry their schema, so that an anyOf of required alternatives can name them.
// Query strings and path segments arrive as text: numbers and booleans are coerced.
const textAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: true, verbose: true }));

/**
 * `x-document` (libs/contracts FreeFormObject): keys at every level, depth and size of a
 * free-form object. Too large is 413, thrown from here; a bad key or too deep is a 400 naming the place.
 */
function addDocumentKeyword(ajv: Ajv): Ajv {
  const check = (limits: DocumentLimits, data: unknown, parentSchema: { propertyNames?: unknown }, cxt?: { instancePath: string }) => {
    const problem = inspectDocument(data, limits, parentSchema.propertyNames === undefined);
    if (!problem) return true;
    if (problem.kind === 'size') {
      throw new PayloadTooLargeError(`${limits.maxBytes / 1024} KB of JSON in ${cxt?.instancePath || 'the body'}`);
    }
    const message =
      problem.kind === 'key'
        ? 'is not an allowed key (1 to 128 characters, no NUL, no ".", not starting with "$")'
        : `nests deeper than ${limits.maxDepth} levels`;
    check.errors = [
      { keyword: 'x-document', instancePath: `${cxt?.instancePath ?? ''}${problem.pointer}`, params: { kind: problem.kind }, message },
    ];
    return false;
  };
  check.errors = [] as Array<Partial<ErrorObject>>;
  ajv.addKeyword({ keyword: 'x-document', type: 'object', errors: true, validate: check as never });
  return ajv;
}

const bodyAjv = addDocumentKeyword(addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, verbose: true })));

export type Validator = ValidateFunction;

export const compileBody = (schema: TSchema): Validator => bodyAjv.compile(schema);
export const compileText = (schema: TSchema): Validator => textAjv.compile(schema);

function alternativesOf(error: ErrorObject): string {
  const branches = (error.parentSchema as { anyOf?: { required?: string[] }[] } | undefined)?.anyOf ?? [];
  return branches.flatMap((b) => b.required ?? []).join(' or ');
}

function keyRule(propertyNames: unknown): string {
  const pattern = (propertyNames as { pattern?: string } | undefined)?.pattern;
  if (pattern === FIELD_NAME_PATTERN)
    return 'is not a valid field name (letters, digits, _ and -, starting with a letter or _; at most 64)';
  if (pattern === DOCUMENT_KEY_PATTERN) return 'is not an allowed key (1 to 128 characters, no NUL, no ".", not starting with "$")';
  return 'is not an allowed key';
}

/** ajv's errors as RFC 9457 field errors, each located by a JSON pointer. */
export function toFieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors ?? []) {
    if (e.schemaPath.includes('/anyOf/')) continue; // summarised by the anyOf error itself
    if (e.propertyName !== undefined && e.keyword !== 'propertyNames') continue; // summarised by propertyNames
    switch (e.keyword) {
      case 'required':
        out.push({ pointer: `${e.instancePath}/${String(e.params['missingProperty'])}`, message: 'is required' });
        break;
      case 'additionalProperties':
        out.push({ pointer: `${e.instancePath}/${String(e.params['additionalProperty'])}`, message: 'is not allowed' });
        break;
      case 'anyOf':
        out.push({ pointer: e.instancePath, message: `must include ${alternativesOf(e) || 'one of the allowed shapes'}` });
        break;
      case 'propertyNames':
        out.push({ pointer: `${e.instancePath}/${String(e.params['propertyName'])}`, message: keyRule(e.schema) });
        break;
      case 'type':
        out.push({ pointer: e.instancePath, message: `must be ${String(e.params['type']).split(',').join(' or ')}` });
        break;
      default:
        out.push({ pointer: e.instancePath, message: e.message ?? 'is invalid' });
    }
  }
  // ajv can report the same place twice (e.g. a type error under anyOf); keep one of each.
  return out.filter((f, i) => out.findIndex((g) => g.pointer === f.pointer && g.message === f.message) === i);
}

/**
 * The offset of the first byte of `bytes` that begins no well-formed UTF-8 sequence, or -1 when all
 * of it is UTF-8. Node's decoder puts one U+FFFD where each ill-formed sequence was: the first one
 * that does not stand for the bytes EF BF BD (a U+FFFD the body really holds) is the place.
 */
export function invalidUtf8Offset(bytes: Buffer): number {
  if (isUtf8(bytes)) return -1;
  const text = bytes.toString('utf8');
  let offset = 0;
  let from = 0;
  for (let at = text.indexOf('\ufffd'); at !== -1; at = text.indexOf('\ufffd', at + 1)) {
    offset += Buffer.byteLength(text.slice(from, at));
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd) return offset;
    offset += 3;
    from = at + 1;
  }
  return offset;
}

// In a `u` regex, a surrogate pair is one code point (not Cs): only a lone surrogate matches.
const LONE_SURROGATE = /\p{Cs}/u;
const pointerToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const LONE_SURROGATE_MESSAGE = 'contains a lone surrogate (a \\ud800–\\udfff escape without its pair), which is no Unicode text';

/**
 * Each string of a parsed JSON body, key or value, that holds a lone surrogate: JSON's \u escapes
 * can write one, JavaScript strings keep it, but it cannot be stored or sent as UTF-8 unaltered.
 * Walked with a stack of its own: the body is not validated yet and may nest deeper than the call stack.
 */
export function loneSurrogates(body: unknown): FieldError[] {
  const found: FieldError[] = [];
  // [value, its pointer, whether the value is the key of its member]; in document order.
  const pending: Array<[unknown, string, boolean]> = [[body, '', false]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, pointer, isKey] = next;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) found.push({ pointer, message: `${isKey ? 'is a key that ' : ''}${LONE_SURROGATE_MESSAGE}` });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], `${pointer}/${i}`, false]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value).reverse()) {
        const at = `${pointer}/${pointerToken(key)}`;
        // A bad key names its member; what it holds is not looked into.
        pending.push(LONE_SURROGATE.test(key) ? [key, at, true] : [item, at, false]);
      }
    }
  }
  return found;
}
