/**
 * The language variant a send (or a preview) uses: the one whose tag is the wanted one, compared
 * case-insensitively as BCP 47 says tags are; else the one whose tag is the wanted tag's primary
 * subtag (`pt-BR` finds `pt`); else null, the template's default.
 */
export function variantFor<V extends { language: string }>(
  variants: readonly V[] | undefined,
  wanted: string | null | undefined,
): V | null {
  if (!variants?.length || !wanted) return null;
  const tag = wanted.toLowerCase();
  const exact = variants.find((v) => v.language.toLowerCase() === tag);
  if (exact) return exact;
  const primary = tag.split('-')[0];
  return variants.find((v) => v.language.toLowerCase() === primary) ?? null;
}
