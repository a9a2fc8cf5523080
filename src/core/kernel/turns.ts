/**
 * Batch work (a storm of renewals: hundreds of wires built and serialized between two statements) runs on the one
 * thread that also answers requests. A request that needs nothing of the batch (a session read from memory) would wait
 * for the whole stretch; with a turn given up every few milliseconds it waits for one slice.
 */

/** How much work, in milliseconds, runs before the event loop gets a turn. */
const SLICE_MS = 8;

/** One turn of the event loop: what is waiting (I/O callbacks, timers) runs before the caller goes on. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A checkpoint for long loops: gives up a turn once SLICE_MS have passed since the last one, and otherwise answers at
 * once, so it can sit inside a loop of any length.
 */
export function sliceTimer(sliceMs = SLICE_MS): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < sliceMs) return undefined;
    return nextTurn().then(() => {
      since = performance.now();
    });
  };
}
