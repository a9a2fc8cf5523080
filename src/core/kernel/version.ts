import { readFileSync } from 'node:fs';

/** The version of the installed package: found from dist/src/core/kernel when built, src/core/kernel from sources. */
export function tillVersion(): string {
  for (const relative of ['../../../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'till' && pkg.version) return pkg.version;
    } catch {
      // Not at this level; try the next.
    }
  }
  return 'unknown';
}
