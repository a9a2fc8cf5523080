/**
 * The mailbox an address reaches, as far as it can be told from the address alone: what `users.normalized_email`
 * holds (unique), what sign-in falls back to, and what one-per-person rules (trial abuse) key on.
 *
 * Lower-cased after Unicode NFC, so one spelling of a character compares equal to another. A `+suffix` on the local
 * part is dropped (sub-addressing: most providers deliver `ann+shop@` to `ann@`). At Gmail dots in the local part
 * are ignored too, and googlemail.com is the same service as gmail.com. Pure and total: an address without `@`
 * comes back lower-cased, and a local part that is only a suffix (`+x@`) keeps it rather than become empty.
 */
const GMAIL_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

export function normalizeEmail(address: string): string {
  const lowered = address.normalize('NFC').toLowerCase();
  const at = lowered.lastIndexOf('@');
  if (at < 0) return lowered;
  let local = lowered.slice(0, at);
  let domain = lowered.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (GMAIL_DOMAINS.has(domain)) {
    domain = 'gmail.com';
    const undotted = local.replaceAll('.', '');
    if (undotted) local = undotted;
  }
  return `${local}@${domain}`;
}
