// The command line the benchmarks that run Till on both databases share: --help, --quick, --only <databases>,
// --pg-url, --cpu-prof and numeric options, each bench naming its own numbers, defaults and help.
import { resolve } from 'node:path';

export const DATABASES = ['sqlite', 'postgres'];

/**
 * Parses `argv` into the bench's flags: `defaults` (which also hold `only`, `pgUrl` and `cpuProf`), `quick` applied by
 * --quick, `numbers` the numeric options by name (positive unless `zero`; rounded when `whole`), and `extra` for an
 * option of the bench's own: called with the option, its value, the flags and `usage`, it answers whether it took
 * them. A wrong option prints the help and exits with 2; --help prints it and exits.
 */
export function benchFlags(argv, { name, help, defaults, quick = {}, numbers = {}, extra = () => false }) {
  const flags = {
    only: DATABASES,
    pgUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test',
    cpuProf: null,
    ...defaults,
  };
  const usage = (message) => {
    process.stderr.write(`bench:${name}: ${message}\n\n${help}`);
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(help);
      process.exit(0);
    } else if (arg === '--quick') Object.assign(flags, quick);
    else if (value === undefined || value === '') usage(`unknown option or missing value: ${arg}`);
    else if (arg === '--pg-url') flags.pgUrl = argv[++i];
    else if (arg === '--cpu-prof') flags.cpuProf = resolve(argv[++i]);
    else if (arg === '--only') {
      flags.only = argv[++i]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const db of flags.only)
        if (!DATABASES.includes(db)) usage(`--only: unknown database "${db}" (${DATABASES.join(', ')})`);
    } else if (arg.startsWith('--') && Object.hasOwn(numbers, arg.slice(2))) {
      const { zero = false, whole = false } = numbers[arg.slice(2)];
      const number = Number(argv[++i]);
      if (!(zero ? number >= 0 : number > 0)) usage(`${arg} must be a number ${zero ? '≥' : '>'} 0 (got "${value}")`);
      flags[arg.slice(2)] = whole ? Math.round(number) : number;
    } else if (extra(arg, value, flags, usage)) i++;
    else usage(`unknown option or missing value: ${arg}`);
  }
  return flags;
}
