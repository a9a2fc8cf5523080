import type { MeterWire } from '../../../core/meters/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgIdOf, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson, printLine } from '../../output.js';

interface Options {
  name: string;
  event?: string;
  filter?: string;
  aggregation: string;
  org?: string;
  json?: boolean;
}

const FUNCS = ['count', 'sum', 'max', 'min', 'avg', 'unique'];

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  if (!opts.event && !opts.filter)
    throw new UsageError('say which events the meter counts: --event <name> or --filter <json>');
  let filter: unknown = { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: opts.event }] };
  if (opts.filter) {
    try {
      filter = JSON.parse(opts.filter);
    } catch {
      throw new UsageError('--filter is not valid JSON');
    }
  }
  const [func, property] = opts.aggregation.split(':');
  if (!func || !FUNCS.includes(func)) throw new UsageError(`--aggregation: one of ${FUNCS.join(', ')}`);
  if (func !== 'count' && !property) throw new UsageError(`--aggregation ${func} needs a property: ${func}:<property>`);
  const organizationId = await orgIdOf(target, opts.org);
  const meter = await call<MeterWire>(target, 'POST', '/v1/meters/', {
    body: {
      name: opts.name,
      filter,
      aggregation: func === 'count' ? { func } : { func, property },
      ...(organizationId ? { organization_id: organizationId } : {}),
    },
  });
  if (opts.json) printJson(meter);
  else printLine(meter.id);
}
