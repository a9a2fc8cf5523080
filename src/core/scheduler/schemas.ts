import { z } from 'zod';

// Wire shapes of the admin API's simulated clock (`/api/admin/clock`). Shared by the daemon and `till clock`.

/** A century: far enough for any test of an integration, near enough that dates stay valid. */
export const MAX_ADVANCE_SECONDS = 100 * 366 * 24 * 3600;

/** `POST /api/admin/clock`: exactly one of a number of seconds to move forward, or the time to move to. */
export const clockMoveBody = z.union([
  z.strictObject({ advance_seconds: z.number().int().min(0).max(MAX_ADVANCE_SECONDS) }),
  z.strictObject({ to: z.iso.datetime({ offset: true }) }),
]);
export type ClockMoveBody = z.infer<typeof clockMoveBody>;

export interface ClockWire {
  now: string;
  simulated: true;
}

export interface ClockMovedWire {
  now: string;
}
