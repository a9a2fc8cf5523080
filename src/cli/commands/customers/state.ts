import type { CustomerStateWire } from '../../../core/customers/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { printJson, printLine } from '../../output.js';
import { customerPath } from './shared.js';

export async function run({ args, opts, globals }: Invocation<{ externalId?: string; json?: boolean }>): Promise<void> {
  const state = await call<CustomerStateWire>(
    signedIn(globals),
    'GET',
    customerPath(args[0], opts.externalId, '/state'),
  );
  if (opts.json) {
    printJson(state);
    return;
  }
  printLine(`${state.email ?? state.name ?? state.id} (${state.id})`);
  printLine(
    `subscriptions:  ${state.active_subscriptions.map((s) => `${s.product_id} ${s.status} until ${s.current_period_end}`).join(', ') || 'none active'}`,
  );
  printLine(
    `benefits:       ${state.granted_benefits.map((grant) => `${grant.benefit_type} ${grant.benefit_id}`).join(', ') || 'none granted'}`,
  );
  printLine(
    `meters:         ${state.active_meters.map((meter) => `${meter.meter_id} balance ${meter.balance}`).join(', ') || 'none'}`,
  );
}
