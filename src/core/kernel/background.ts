import { nextTurn } from './turns.js';

/**
 * Work a request starts and does not wait for. Each step begins on a later turn of the event loop, so the answer is
 * written before the step has sent anything anywhere; the daemon waits for the steps still running when it closes,
 * and hears of the ones that failed.
 */
export function createBackground() {
  const pending = new Set<Promise<void>>();
  const failureListeners = new Set<(error: unknown, what: string) => void>();

  return {
    run(what: string, work: () => Promise<void>): void {
      const step: Promise<void> = nextTurn()
        .then(work)
        .catch((error: unknown) => {
          for (const listener of failureListeners) listener(error, what);
        })
        .finally(() => pending.delete(step));
      pending.add(step);
    },

    /** Waits for every step started so far, and for the ones those start. */
    async settled(): Promise<void> {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },

    /** Calls the listener with the error of a step that failed and what it was; answers the unsubscribe. */
    onFailure(listener: (error: unknown, what: string) => void): () => void {
      failureListeners.add(listener);
      return () => failureListeners.delete(listener);
    },
  };
}

export type Background = ReturnType<typeof createBackground>;
