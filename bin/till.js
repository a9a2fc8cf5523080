#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm run build` (run on install through `prepare`).
import('../dist/src/cli/index.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/src/cli')) {
    process.stderr.write('till: the CLI is not built yet; run `npm run build` first\n');
    process.exit(1);
  }
  throw error;
});
