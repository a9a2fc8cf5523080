// Bundles the hosted pages' browser code (React hydration of the checkout and the portal) into dist/client, one
// file per page named by its content hash, plus manifest.json mapping each page to its file. The daemon serves these
// prebuilt files with a year-long cache: a new build changes the name, so no browser keeps a stale script.
import { build } from 'esbuild';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'client');
const pages = ['checkout', 'portal'];

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
const result = await build({
  entryPoints: Object.fromEntries(pages.map((page) => [page, join(root, 'src/daemon/pages/client', `${page}.tsx`)])),
  outdir,
  entryNames: '[name]-[hash]',
  chunkNames: 'shared-[hash]',
  // React is shared by both pages: one chunk, cached once.
  splitting: true,
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2020'],
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  metafile: true,
  logLevel: 'warning',
});
const manifest = {};
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  if (!output.entryPoint) continue;
  const page = basename(output.entryPoint).replace(/\.tsx$/, '');
  manifest[page] = basename(file);
}
await writeFile(join(outdir, 'manifest.json'), JSON.stringify(manifest, null, 2));
