const EMAIL = /([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9-])[A-Za-z0-9.-]*?(\.[A-Za-z]{2,})\b/g;
const SECRET_KEY = /pass(word)?|secret|api_?key|token|authorization|cookie|credential/i;

/** Masks every email address in a string: "jane.doe@example.com" becomes "j***@e***.com". */
export function maskEmails(text: string): string {
  return text.replace(EMAIL, '$1***@$2***$3');
}

/** Deep copy of a log payload with emails masked and secret-looking keys replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskEmails(value);
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  if (value instanceof Error) {
    return { name: value.name, message: maskEmails(value.message), stack: value.stack && maskEmails(value.stack) };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) && v != null ? '[redacted]' : redact(v, depth + 1);
  }
  return out;
}
