/**
 * Billing periods. Months and years move by calendar (UTC): a subscription started on 31 January renews on 28 or
 * 29 February and then on 31 March, because each period end is computed from the start and the period count, never
 * from the previous (clamped) end.
 */
export type Interval = 'day' | 'week' | 'month' | 'year';

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

export function addInterval(start: Date, interval: Interval, count: number): Date {
  if (interval === 'day') return new Date(start.getTime() + count * 86_400_000);
  if (interval === 'week') return new Date(start.getTime() + count * 7 * 86_400_000);
  const months = interval === 'year' ? count * 12 : count;
  const total = start.getUTCMonth() + months;
  const year = start.getUTCFullYear() + Math.floor(total / 12);
  const month = ((total % 12) + 12) % 12;
  const day = Math.min(start.getUTCDate(), daysInMonth(year, month));
  return new Date(
    Date.UTC(
      year,
      month,
      day,
      start.getUTCHours(),
      start.getUTCMinutes(),
      start.getUTCSeconds(),
      start.getUTCMilliseconds(),
    ),
  );
}

/** End of the n-th period (1-based) of a subscription that started at `anchor`. */
export function periodEnd(anchor: Date, interval: Interval, intervalCount: number, periods: number): Date {
  return addInterval(anchor, interval, intervalCount * periods);
}
