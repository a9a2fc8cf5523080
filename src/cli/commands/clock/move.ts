import type { ClockMoveBody, ClockMovedWire, ClockWire } from '../../../core/scheduler/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveTarget } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson, printLine } from '../../output.js';
import { resolveAdminToken } from '../admin/admin-token.js';
import { durationSeconds } from './duration.js';

type Options = { json?: boolean };

export async function show({ opts, globals }: Invocation<Options>): Promise<void> {
  const clock = await call<ClockWire>(resolveTarget(globals), 'GET', '/api/admin/clock', {
    auth: { kind: 'admin', token: resolveAdminToken() },
  });
  if (opts.json) printJson(clock);
  else printLine(clock.now);
}

export async function advance(invocation: Invocation<Options>): Promise<void> {
  const text = String(invocation.args[0]);
  const seconds = durationSeconds(text);
  if (seconds === null)
    throw new UsageError(`"${text}" is not a duration: use a whole number and a unit, s m h d or w (e.g. 31d)`);
  await move(invocation, { advance_seconds: seconds });
}

export async function set(invocation: Invocation<Options>): Promise<void> {
  const text = String(invocation.args[0]);
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) ||
    Number.isNaN(Date.parse(text))
  )
    throw new UsageError(`"${text}" is not an ISO 8601 time with an offset (e.g. 2027-01-01T00:00:00Z)`);
  await move(invocation, { to: new Date(text).toISOString() });
}

async function move({ opts, globals }: Invocation<Options>, body: ClockMoveBody): Promise<void> {
  const moved = await call<ClockMovedWire>(resolveTarget(globals), 'POST', '/api/admin/clock', {
    auth: { kind: 'admin', token: resolveAdminToken() },
    body,
  });
  if (opts.json) printJson(moved);
  else printLine(moved.now);
}
