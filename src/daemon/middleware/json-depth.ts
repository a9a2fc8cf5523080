/**
 * How deep JSON may nest in a request body. Every documented body (Polar's metadata included) is a few levels deep;
 * the limit keeps JSON.parse and everything that walks the parsed value (validation, the NUL check, the idempotency
 * fingerprint) far from the stack's limit, whatever a client sends.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text nests deeper than `max` arrays and objects. One pass without recursion, before the text is
 * parsed; brackets inside strings do not count. Malformed text is left for JSON.parse to refuse.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return false;
}
