import { Box, render, Text, useStdout } from 'ink';
import { progressLines, type IngestProgress } from './progress.js';

/**
 * The progress lines at the terminal's width. Ink cuts each line rather than wrap it: a wrapped line would take a
 * row Ink does not know to erase, and every redraw would leave a copy behind.
 */
export function IngestProgressBar({ progress }: { progress: IngestProgress }) {
  const { stdout } = useStdout();
  return (
    <Box flexDirection="column">
      {progressLines(progress, stdout.columns || 80).map((line, row) => (
        <Text key={row} wrap="truncate-end">
          {line}
        </Text>
      ))}
    </Box>
  );
}

export type ProgressCounts = Pick<IngestProgress, 'bytesRead' | 'sent' | 'inserted' | 'duplicates'>;

export interface ProgressHandle {
  update(counts: ProgressCounts): void;
  /** Draws the last frame (100% and "done", or "stopped") and leaves it on the screen, the cursor below it. */
  finish(state: 'done' | 'failed'): void;
}

/**
 * Draws the bar on stderr (stdout carries the result, and --json's) until `finish`. The caller has checked that
 * stderr is a terminal. The line is also redrawn every second between batches, so the elapsed time and the rate
 * keep moving while a slow daemon or a slow writer into stdin holds the next batch up.
 */
export function showIngestProgress(
  label: string,
  totalBytes: number | null,
  now: () => number = Date.now,
): ProgressHandle {
  const startedAt = now();
  let counts: ProgressCounts = { bytesRead: 0, sent: 0, inserted: 0, duplicates: 0 };
  const frame = (state: IngestProgress['state']) => (
    <IngestProgressBar progress={{ label, totalBytes, ...counts, elapsedMs: now() - startedAt, state }} />
  );
  // The bar reads no keys, so Ink never puts stdin in raw mode: `--file -` reads the events from it undisturbed,
  // and Ctrl+C stays the terminal's SIGINT (Ink still restores the cursor on the way out). The console is left
  // alone because nothing here logs through it.
  const instance = render(frame('running'), {
    stdout: process.stderr,
    stderr: process.stderr,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  // Unref'd: a forgotten timer must never be what keeps the CLI alive after its last batch.
  const tick = setInterval(() => instance.rerender(frame('running')), 1000);
  tick.unref();
  let finished = false;
  return {
    update(next) {
      counts = next;
      // Ink throttles its writes (30 frames a second at most), so a frame per batch costs nothing when batches are fast.
      instance.rerender(frame('running'));
    },
    finish(state) {
      if (finished) return;
      finished = true;
      clearInterval(tick);
      instance.rerender(frame(state));
      // Unmounting writes the pending frame and a line break, so whatever is printed next (the summary or the
      // error) starts on its own line under the finished bar.
      instance.unmount();
    },
  };
}
