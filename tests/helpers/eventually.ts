/**
 * Another daemon hears of a change through PostgreSQL's NOTIFY a few milliseconds after it commits: poll for the
 * expected value a bounded number of times instead of sleeping for a guessed delay.
 */
export async function eventually<T>(read: () => Promise<T>, expected: T): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 200 && value !== expected; attempt++) {
    await new Promise((resolve) => setImmediate(resolve));
    value = await read();
  }
  return value;
}
