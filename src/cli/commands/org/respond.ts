import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';

/** accept, reject and cancel differ only in route and wording; each is its own command on the same code. */
const ACTIONS = {
  accept: { path: 'accept-invitation', done: 'Accepted' },
  reject: { path: 'reject-invitation', done: 'Rejected' },
  cancel: { path: 'cancel-invitation', done: 'Canceled' },
} as const;

export function runner(action: keyof typeof ACTIONS) {
  return async ({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> => {
    const invitationId = String(args[0]);
    const target = signedIn(globals);
    const answer = await call<unknown>(target, 'POST', `/api/auth/organization/${ACTIONS[action].path}`, {
      body: { invitationId },
    });
    if (opts.json) {
      printJson(answer);
      return;
    }
    info(`${ACTIONS[action].done} invitation ${invitationId}`);
  };
}
