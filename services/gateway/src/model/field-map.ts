/**
 * The document fields a request body sets: each API name (snake_case) present in the body, under
 * its document name. Absent keys are left out, so a PATCH changes only what it names.
 */
export function mapFields<Body extends object, Doc>(body: Body, fieldOf: { readonly [K in keyof Body]-?: keyof Doc }): Partial<Doc> {
  const doc: Record<string, unknown> = {};
  for (const [apiName, docName] of Object.entries(fieldOf) as [keyof Body, keyof Doc][]) {
    const value = body[apiName];
    if (value !== undefined) doc[docName as string] = value;
  }
  return doc as Partial<Doc>;
}
