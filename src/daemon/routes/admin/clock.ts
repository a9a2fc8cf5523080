import type Router from '@koa/router';
import type { CoreContext } from '../../../core/context.js';
import { DomainError } from '../../../core/kernel/errors.js';
import type { ClockControl } from '../../../core/scheduler/advance.js';
import { clockMoveBody, type ClockMovedWire, type ClockWire } from '../../../core/scheduler/schemas.js';
import { validateInput } from '../auth/validation.js';

/**
 * The simulated clock (TILL_CLOCK=simulated): read it, or move it forward and wait until everything due up to the
 * new time is done. Under the real clock there is no such resource: 404.
 */
export function adminClockRoutes(router: Router, core: CoreContext): void {
  function control(): ClockControl {
    if (!core.clockControl)
      throw new DomainError(
        404,
        'NOT_FOUND',
        'The clock is the system clock; start the daemon with TILL_CLOCK=simulated',
      );
    return core.clockControl;
  }

  router.get('/clock', (ctx) => {
    ctx.body = control().view() satisfies ClockWire;
  });

  router.post('/clock', async (ctx) => {
    const clock = control();
    const body = validateInput(clockMoveBody, ctx.state.body, 'body');
    const target =
      'to' in body ? new Date(body.to) : new Date(core.clock.now().getTime() + body.advance_seconds * 1000);
    const now = await clock.advanceTo(target);
    ctx.body = { now: now.toISOString() } satisfies ClockMovedWire;
  });
}
