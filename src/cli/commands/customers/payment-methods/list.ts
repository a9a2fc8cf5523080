import type { PaymentMethodWire } from '../../../../core/payment-methods/schemas.js';
import type { Invocation } from '../../../action.js';
import { signedIn } from '../../../context.js';
import { printJson, printTable } from '../../../output.js';
import { fetchAll } from '../../../pages.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const customer = String(args[0]);
  const methods = await fetchAll<PaymentMethodWire>(
    target,
    `/v1/customers/${encodeURIComponent(customer)}/payment-methods`,
  );
  if (opts.json) {
    printJson(methods);
    return;
  }
  printTable(
    ['ID', 'BRAND', 'LAST4', 'EXPIRES', 'DEFAULT', 'CREATED'],
    methods.map((method) => {
      const card = method.method_metadata;
      return [
        method.id,
        card.brand,
        card.last4,
        `${String(card.exp_month).padStart(2, '0')}/${card.exp_year}`,
        method.is_default ? 'yes' : '',
        method.created_at,
      ];
    }),
  );
}
