// Summarises a V8 .cpuprofile (node --cpu-prof): where the busy time went, by package and by function.
//   node bench/auth/profile-summary.mjs <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function shortUrl(url) {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  const dist = path.indexOf('/dist/');
  if (dist >= 0) return path.slice(dist + 1);
  return path;
}

function packageOf(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native / builtins)';
  if (url.startsWith('node:')) return 'node core';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (path.includes('/dist/src/')) return 'till (dist/src)';
  if (path.includes('/dist/migrations/')) return 'till (migrations)';
  return path;
}

export function summarizeProfile(file, top = 25) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map();
  const parent = new Map();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const keyOf = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    return `${functionName || '(anonymous)'}  ${shortUrl(url)}${url ? `:${lineNumber + 1}` : ''}`;
  };

  const self = new Map();
  const inclusive = new Map();
  const packages = new Map();
  let total = 0;
  let idle = 0;
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    const dt = (timeDeltas[i + 1] ?? timeDeltas[i] ?? 0) / 1000; // ms; the delta after a sample is its duration
    const node = byId.get(samples[i]);
    if (!node) continue;
    const name = node.callFrame.functionName;
    if (name === '(idle)') {
      idle += dt;
      continue;
    }
    total += dt;
    const key = keyOf(node);
    self.set(key, (self.get(key) ?? 0) + dt);
    const pkg = packageOf(node.callFrame.url, name);
    packages.set(pkg, (packages.get(pkg) ?? 0) + dt);
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id);
      const k = keyOf(frame);
      if (seen.has(k) || frame.callFrame.functionName === '(root)') continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
    }
  }

  const pct = (ms) => `${((ms / total) * 100).toFixed(1).padStart(5)} %`;
  const rows = (map, n) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, ms]) => `  ${pct(ms)}  ${(ms / 1000).toFixed(2).padStart(7)} s  ${key}`);
  return [
    `  busy ${(total / 1000).toFixed(1)} s, idle ${(idle / 1000).toFixed(1)} s (main thread only; hash workers are not in this profile)`,
    '  self time by package:',
    ...rows(packages, 15),
    `  self time, top ${top} functions:`,
    ...rows(self, top),
    `  inclusive time, top ${top} functions:`,
    ...rows(inclusive, top),
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/auth/profile-summary.mjs <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(summarizeProfile(file, Number(top) || 25) + '\n');
}
