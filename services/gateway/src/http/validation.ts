import type { TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from '@postbus/errors';

// verbose: errors carry their schema, so that an anyOf of required alternatives can name them.
const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, verbose: true }));
// Query strings and path segments arrive as text: numbers and booleans are coerced.
const textAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: true, verbose: true }));

export type Validator = ValidateFunction;

export const compileBody = (schema: TSchema): Validator => bodyAjv.compile(schema);
export const compileText = (schema: TSchema): Validator => textAjv.compile(schema);

function alternativesOf(error: ErrorObject): string {
  const branches = (error.parentSchema as { anyOf?: { required?: string[] }[] } | undefined)?.anyOf ?? [];
  return branches.flatMap((b) => b.required ?? []).join(' or ');
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
        out.push({
          pointer: `${e.instancePath}/${String(e.params['propertyName'])}`,
          message: 'is not a valid field name (letters, digits, _ and -, starting with a letter or _; at most 64)',
        });
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
