import type { Command } from 'commander';
import { isoTimeFlag } from './flags.js';

/** The options `orders export` and `subscriptions export` share, named as their list commands name filters. */
export interface ExportOptions {
  product?: string;
  status?: string;
  after?: string;
  before?: string;
  timezone?: string;
  columns?: string;
  org?: string;
  allOrgs?: boolean;
  output?: string;
}

export function withExportOptions(command: Command, what: string, columns: string): Command {
  return command
    .option('--product <id>', `only ${what} of this product`)
    .option('--status <status>', 'only this status')
    .option('--after <ISO time>', `only ${what} from after this time`)
    .option('--before <ISO time>', `only ${what} from before this time`)
    .option('--timezone <zone>', 'write times in this IANA time zone (default UTC)')
    .option('--columns <list>', `comma-separated columns, in order: ${columns}`)
    .option('--org <id|slug>', 'this organization instead of the active one')
    .option('--all-orgs', 'every organization of yours')
    .option('-o, --output <file>', 'write to this file instead of standard output');
}

export function exportQuery(opts: ExportOptions, names: { after: string; before: string }): URLSearchParams {
  const query = new URLSearchParams();
  if (opts.product) query.set('product_id', opts.product);
  if (opts.status) query.set('status', opts.status);
  if (opts.after !== undefined) query.set(names.after, isoTimeFlag('--after', opts.after));
  if (opts.before !== undefined) query.set(names.before, isoTimeFlag('--before', opts.before));
  if (opts.timezone) query.set('timezone', opts.timezone);
  for (const column of (opts.columns ?? '').split(',').map((name) => name.trim()))
    if (column) query.append('columns', column);
  return query;
}
