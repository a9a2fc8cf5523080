import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { fieldError } from '../polar-api/errors.js';

/**
 * Server-side request forgery guard: an endpoint may not make the daemon call into its own network (loopback,
 * private ranges, link-local cloud metadata). Checked when an endpoint is saved (with a clear 422) and again for every
 * connection (the name may resolve elsewhere by then).
 */

function ipv4Private(address: string): boolean {
  const [a, b] = address.split('.').map(Number) as [number, number];
  return (
    a === 0 ||
    a === 127 ||
    a === 10 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 169 && b === 254) ||
    // Carrier-grade NAT and multicast/reserved space: not the public internet either.
    (a === 100 && b >= 64 && b <= 127) ||
    a >= 224
  );
}

export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  const version = isIP(bare);
  if (version === 4) return ipv4Private(bare);
  if (version !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return ipv4Private(mapped[1]!);
  // The same, as the URL parser normalizes it: ::ffff:7f00:1.
  const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(bare);
  if (mappedHex) {
    const [high, low] = [Number.parseInt(mappedHex[1]!, 16), Number.parseInt(mappedHex[2]!, 16)];
    return ipv4Private(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  if (bare === '::' || bare === '::1') return true;
  const first = Number.parseInt(bare.split(':')[0] || '0', 16);
  // fc00::/7 (unique local) and fe80::/10 (link-local).
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}

/** The daemon setting that lets endpoints reach private addresses (src/core/config). */
const PRIVATE_URLS_SETTING = 'TILL_WEBHOOK_ALLOW_PRIVATE_URLS=true';

/** Parses and checks an endpoint URL; throws a 422 at `loc` when it is unusable. */
export async function checkEndpointUrl(
  raw: string,
  allowPrivate: boolean,
  loc: Array<string | number> = ['body', 'url'],
): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fieldError(loc, 'Input should be a valid URL', 'url_parsing');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw fieldError(loc, 'URL scheme should be http or https', 'url_scheme');
  if (url.username || url.password) throw fieldError(loc, 'URL must not carry credentials');
  if (allowPrivate) return url.toString();
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    throw fieldError(loc, `The host ${host} does not resolve`);
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    // The refusal names the setting that lifts it, so a developer pointing at localhost knows what to change.
    throw fieldError(
      loc,
      `URL must not point at a loopback, private or link-local address (${PRIVATE_URLS_SETTING} on the daemon allows it, for development)`,
    );
  }
  return url.toString();
}
