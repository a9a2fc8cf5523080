import { UsageError } from './errors.js';

/** `--metadata key=value` entries as an object; values stay strings, as typed (customers, and every filter). */
export function parseMetadata(entries: string[] | undefined): Record<string, string> | undefined {
  if (!entries) return undefined;
  const metadata: Record<string, string> = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq < 1) throw new UsageError(`--metadata takes key=value (got "${entry}")`);
    metadata[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return metadata;
}

/** The same entries with numbers and true/false sent as such, as the catalog's metadata flags promise. */
export function parseTypedMetadata(
  entries: string[] | undefined,
): Record<string, string | number | boolean> | undefined {
  const metadata = parseMetadata(entries);
  if (!metadata) return undefined;
  const typed: Record<string, string | number | boolean> = {};
  for (const [key, raw] of Object.entries(metadata))
    typed[key] = raw === 'true' ? true : raw === 'false' ? false : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  return typed;
}
