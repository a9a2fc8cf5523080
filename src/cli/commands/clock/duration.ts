const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** `31d` → seconds; null unless a whole number followed by one of s m h d w. */
export function durationSeconds(text: string): number | null {
  const match = /^(\d{1,10})([smhdw])$/.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * UNIT_SECONDS[match[2]!]!;
}
