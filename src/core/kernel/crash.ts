/**
 * The points where money is in flight between the processor and our rows, or counts between two writes: a process
 * that stops at one of them leaves work that only the reconciler (or the next start's recount) finishes. Tests stop
 * the daemon at each (TILL_TEST_CRASH_AT, read by the daemon at start, see daemon/crash-hook.ts) to prove that nothing
 * stays stuck.
 */
export const CRASH_POINTS = [
  /** The checkout won its race (`confirmed`); the charge has not been asked for. */
  'checkout.confirmed',
  /** The processor charged; no order is written yet. */
  'checkout.charged',
  /** A fulfilment failed after the charge and the charge was refunded; the checkout is not marked failed yet. */
  'checkout.voided',
  /** The refund is reserved (`pending`); the processor has not been asked. */
  'refund.reserved',
  /** The processor answered the refund; the answer is not written yet. */
  'refund.processed',
  /** The processor charged a renewal order's saved method; the payment is not recorded, the order still pending. */
  'renewal.charged',
  /** A grant job's strategy did its work (a key issued, an invitation sent); the grant is not committed yet. */
  'grant.granted',
  /** SQLite: a background write of held meter totals committed a slice; the `totals` mark has not moved yet. */
  'totals.sliced',
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];

/** Called at each crash point; outside tests it does nothing. */
export type CrashHook = (point: CrashPoint) => void;

export const noCrash: CrashHook = () => undefined;
