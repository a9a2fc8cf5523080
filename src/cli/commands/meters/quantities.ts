import { plot } from 'asciichart';
import type { MeterQuantitiesWire, TimeInterval } from '../../../core/meters/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson, printLine } from '../../output.js';

interface Options {
  interval: string;
  start?: string;
  end?: string;
  customer?: string;
  timezone?: string;
  json?: boolean;
}

const INTERVALS: Record<TimeInterval, number> = {
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
  year: 365 * 86_400_000,
};

function instant(value: string | undefined, flag: string, fallback: number): string {
  if (value === undefined) return new Date(fallback).toISOString();
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) throw new UsageError(`${flag} takes an ISO 8601 date or datetime (got "${value}")`);
  return new Date(parsed).toISOString();
}

/** The series drawn with asciichart (the first and last period under it), or as JSON with --json. */
export async function run({ args, opts, globals }: Invocation<Options>): Promise<void> {
  if (!(opts.interval in INTERVALS)) throw new UsageError(`--interval: one of ${Object.keys(INTERVALS).join(', ')}`);
  const interval = opts.interval as TimeInterval;
  const now = Date.now();
  const query = new URLSearchParams({
    start_timestamp: instant(opts.start, '--start', now - 29 * INTERVALS[interval]),
    end_timestamp: instant(opts.end, '--end', now),
    interval,
  });
  if (opts.customer) query.set('customer_id', opts.customer);
  if (opts.timezone) query.set('timezone', opts.timezone);
  const series = await call<MeterQuantitiesWire>(
    signedIn(globals),
    'GET',
    `/v1/meters/${encodeURIComponent(String(args[0]))}/quantities?${query}`,
  );
  if (opts.json) {
    printJson(series);
    return;
  }
  const values = series.quantities.map((point) => point.quantity);
  if (values.length > 1) printLine(plot(values, { height: 10, format: (x) => x.toFixed(2).padStart(12) }));
  const first = series.quantities[0]?.timestamp ?? '';
  const last = series.quantities[series.quantities.length - 1]?.timestamp ?? '';
  printLine(`${first} … ${last}  (${values.length} ${interval}s)`);
  printLine(`total: ${series.total}`);
}
