// bench/events' command line: its options, their defaults and its help.
import { benchFlags } from '../auth/flags.mjs';

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
  return benchFlags(argv, {
    name: 'events',
    help: HELP,
    defaults: { events: 1_000_000, clients: 8, customers: 10_000 },
    quick: { events: 100_000, customers: 2000 },
    numbers: { events: { whole: true }, clients: { whole: true }, customers: { whole: true } },
  });
}
