import type { ProductWire } from '../../../core/products/schemas.js';
import type { OrderWire } from '../../../core/orders/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgFilter, signedIn } from '../../context.js';
import type { Page } from '../../pages.js';
import { complete, completionTree, type IdKind } from './tree.js';

/** Completion waits this long for the daemon at most: a slow or absent daemon must not hang the shell. */
const ID_TIMEOUT_MS = 1000;

/** The active organization's ids of one kind (its first 100), starting with what is typed. */
async function ids(invocation: Invocation, resource: IdKind, prefix: string): Promise<string[]> {
  const target = signedIn(invocation.globals);
  const query = new URLSearchParams({ limit: '100' });
  await orgFilter(target, query, { json: true });
  const page = await call<Page<ProductWire | OrderWire>>(target, 'GET', `/v1/${resource}/?${query}`);
  return page.items.map((item) => item.id).filter((id) => id.startsWith(prefix));
}

/**
 * `till __complete <words…>`: one candidate per line for the word being completed (the last), for the shell
 * scripts of `till completion`. Silent on any failure: completion offers nothing rather than an error.
 */
export async function run(invocation: Invocation): Promise<void> {
  const words = (invocation.args[0] as string[] | undefined) ?? [];
  try {
    const root = invocation.command.parent!;
    const wanted = complete(completionTree(root), words.length > 0 ? words : ['']);
    const candidates =
      wanted.kind === 'words'
        ? wanted.words
        : await Promise.race([
            ids(invocation, wanted.resource, wanted.prefix),
            new Promise<string[]>((resolve) => setTimeout(() => resolve([]), ID_TIMEOUT_MS).unref()),
          ]);
    if (candidates.length > 0) process.stdout.write(`${candidates.join('\n')}\n`);
  } catch {
    // Not signed in, no daemon, a daemon error: nothing to offer.
  }
}
