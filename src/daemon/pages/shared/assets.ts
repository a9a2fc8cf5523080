import Router from '@koa/router';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The hosted pages' browser bundles, built by `npm run build` (scripts/bundle-pages.mjs) into dist/client with a
 * content hash in each name. The daemon runs from src (tests) or dist, so the package root is found by walking up
 * to package.json rather than by a fixed relative path.
 */

export type PageBundle = 'checkout' | 'portal';

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the daemon');
    dir = parent;
  }
  return dir;
}

const CLIENT_DIR = join(packageRoot(), 'dist', 'client');
const MAX_BUNDLE_AGE = 365 * 24 * 3600;

/** The manifest is read once: bundles only change with a new build, which means a restarted daemon. */
function readManifest(): Partial<Record<PageBundle, string>> {
  try {
    return JSON.parse(readFileSync(join(CLIENT_DIR, 'manifest.json'), 'utf8')) as Partial<Record<PageBundle, string>>;
  } catch {
    // Not built: pages still work as plain forms, without hydration.
    return {};
  }
}

const manifest = readManifest();

/** The URL of a page's bundle, or null when the bundles were not built (the page then runs without JavaScript). */
export function bundleUrl(page: PageBundle): string | null {
  const file = manifest[page];
  return file ? `/assets/${file}` : null;
}

/** The built scripts (the pages' entries and the chunk they share), read once; none when not built. */
function readBundles(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  if (Object.keys(manifest).length === 0) return files;
  for (const file of readdirSync(CLIENT_DIR)) {
    if (file.endsWith('.js')) files.set(file, readFileSync(join(CLIENT_DIR, file)));
  }
  return files;
}

/** `/assets/<name>-<hash>.js`: only the built scripts, cached for a year (a new build changes their names). */
export function assetsRouter(): Router {
  const router = new Router();
  const files = readBundles();
  router.get('/assets/:file', (ctx) => {
    const body = files.get(ctx.params.file!);
    if (!body) {
      // In this order: Koa turns a null body set after the status into a 204.
      ctx.body = null;
      ctx.status = 404;
      return;
    }
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', `public, max-age=${MAX_BUNDLE_AGE}, immutable`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = body;
  });
  return router;
}
