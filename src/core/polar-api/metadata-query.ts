import { fieldError } from './errors.js';

/** `metadata[key]=value` filters (Polar's deepObject MetadataQuery): each key may repeat, values of a key are ORed. */
export type MetadataQuery = Record<string, string[]>;

const KEY = /^metadata\[([^\]]{1,40})\]$/;

/**
 * Reads the metadata filters out of the raw query string object. Koa does not nest `a[b]` keys, so they are
 * picked up here rather than by the route's zod schema.
 */
export function metadataQuery(query: Record<string, string | string[] | undefined>): MetadataQuery {
  const filters: MetadataQuery = {};
  for (const [name, raw] of Object.entries(query)) {
    if (!name.startsWith('metadata')) continue;
    const match = KEY.exec(name);
    if (!match)
      throw fieldError(
        ['query', 'metadata'],
        'Metadata filters take the form metadata[key]=value, with keys of 1-40 characters.',
      );
    const values = (Array.isArray(raw) ? raw : [raw ?? '']).filter((value) => value.length <= 500);
    if (Object.keys(filters).length >= 50) throw fieldError(['query', 'metadata'], 'At most 50 metadata filters.');
    filters[match[1]!] = values;
  }
  return filters;
}
