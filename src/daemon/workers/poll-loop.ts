/**
 * The loop the delivery workers and the reconciler run: do a round of work when woken (this daemon committed
 * something) and otherwise every `intervalMs` of wall-clock time (work that fell due by the injected clock, or that
 * another daemon wrote). A wake during a round runs another round right after it, so nothing committed meanwhile
 * waits a poll.
 */
export interface PollLoop {
  wake(): void;
  /** Stops polling and waits for a round in progress to finish. */
  stop(): Promise<void>;
  /** True once stop() was called; long rounds check it to end early. */
  readonly stopped: boolean;
}

export function startPollLoop(round: () => Promise<void>, intervalMs: number): PollLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let wokenWhileRunning = false;

  function wake(): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = null;
    if (running) {
      wokenWhileRunning = true;
      return;
    }
    running = round().finally(() => {
      running = null;
      if (wokenWhileRunning) {
        wokenWhileRunning = false;
        wake();
        return;
      }
      schedule();
    });
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(wake, intervalMs);
    timer.unref();
  }

  return {
    wake,
    get stopped() {
      return stopped;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
