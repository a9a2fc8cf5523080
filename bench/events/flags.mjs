// bench/events' command line: its options, their defaults and its help.
import { resolve } from 'node:path';

const DATABASES = ['sqlite', 'postgres'];

const HELP = `Usage: node bench/events/run.js [options]        (npm run bench:events -- [options])

  --events <n>      events ingested per database                        (1000000)
  --clients <n>     concurrent clients, one batch in flight each         (8)
  --customers <n>   customers the events are spread over                 (10000)
  --only <list>     sqlite,postgres (bare Koa always runs)               (both)
  --pg-url <url>    PostgreSQL to create the database on                 BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/test)
  --cpu-prof <dir>  run the daemons under node --cpu-prof, write the profiles to <dir> and print their hot spots
  --quick           --events 100000 --customers 2000
`;

export function options(argv) {
  const flags = {
    events: 1_000_000,
    clients: 8,
    customers: 10_000,
    only: DATABASES,
    pgUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test',
    cpuProf: null,
  };
  const usage = (message) => {
    process.stderr.write(`bench:events: ${message}\n\n${HELP}`);
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(HELP);
      process.exit(0);
    } else if (arg === '--quick') Object.assign(flags, { events: 100_000, customers: 2000 });
    else if (arg === '--pg-url' && argv[i + 1]) flags.pgUrl = argv[++i];
    else if (arg === '--cpu-prof' && argv[i + 1]) flags.cpuProf = resolve(argv[++i]);
    else if (arg === '--only' && argv[i + 1]) {
      flags.only = argv[++i].split(',').map((s) => s.trim());
      for (const name of flags.only) if (!DATABASES.includes(name)) usage(`--only: unknown database "${name}"`);
    } else if (/^--(events|clients|customers)$/.test(arg) && Number(argv[i + 1]) > 0) {
      flags[arg.slice(2)] = Math.round(Number(argv[++i]));
    } else usage(`unknown option or missing value: ${arg}`);
  }
  return flags;
}
