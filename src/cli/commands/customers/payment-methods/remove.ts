import type { Invocation } from '../../../action.js';
import { call, signedIn } from '../../../context.js';
import { info } from '../../../output.js';
import { asCustomer, PORTAL_METHODS } from './portal.js';

export async function run({ args, globals }: Invocation): Promise<void> {
  const target = signedIn(globals);
  const [customer, method] = args.map(String) as [string, string];
  const auth = await asCustomer(target, customer);
  await call<null>(target, 'DELETE', `${PORTAL_METHODS}/${encodeURIComponent(method)}`, { auth });
  info(`removed payment method ${method}`);
}
