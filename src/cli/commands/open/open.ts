import { spawn } from 'node:child_process';
import type { z } from 'zod';
import type { CheckoutWire } from '../../../core/checkouts/schemas.js';
import type { customerSessionSchema } from '../../../core/customers/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn, type Target } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { info, printJson, printLine } from '../../output.js';

const PAGES = ['checkout', 'portal'] as const;

async function pageUrl(target: Target, page: (typeof PAGES)[number], id: string): Promise<unknown> {
  if (page === 'checkout') {
    const checkout = await call<CheckoutWire>(target, 'GET', `/v1/checkouts/${encodeURIComponent(id)}`);
    return { page, id, url: checkout.url };
  }
  const session = await call<z.output<typeof customerSessionSchema>>(target, 'POST', '/v1/customer-sessions/', {
    body: { customer_id: id },
  });
  return { page, id, url: session.customer_portal_url, expires_at: session.expires_at };
}

/** The desktop's own opener; detached, so the CLI exits while the browser stays. */
function openInBrowser(url: string): Promise<void> {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.once('error', (error) =>
      reject(new CliError(`cannot open a browser with ${command} (${error.message}); the page is ${url}`)),
    );
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

export async function run({ args, opts, globals }: Invocation<{ browser?: boolean; json?: boolean }>): Promise<void> {
  const page = String(args[0]);
  if (!(PAGES as readonly string[]).includes(page))
    throw new UsageError(`the page to open is checkout or portal (got "${page}")`);
  const opened = (await pageUrl(signedIn(globals), page as (typeof PAGES)[number], String(args[1]))) as {
    url: string;
  };
  if (opts.browser) {
    await openInBrowser(opened.url);
    info(`Opened ${opened.url}`);
    return;
  }
  if (opts.json) printJson(opened);
  else printLine(opened.url);
}
