import type { MetadataQuery } from '../polar-api/metadata-query.js';

/**
 * `metadata[key]=value` filters applied to events already read (a per-customer quantity series), matching as the
 * events list's SQL does (polar-api/metadata-filter.ts): values compare as text, so a number or boolean matches its
 * JSON spelling, and several values of one key are ORed.
 */
export function matchesMetadata(metadata: Record<string, unknown>, filters: MetadataQuery): boolean {
  for (const [key, values] of Object.entries(filters)) {
    if (values.length === 0) continue;
    const stored = metadata[key];
    if (stored === undefined || stored === null) return false;
    const text =
      typeof stored === 'string' ? stored : typeof stored === 'object' ? JSON.stringify(stored) : String(stored);
    if (!values.includes(text)) return false;
  }
  return true;
}
