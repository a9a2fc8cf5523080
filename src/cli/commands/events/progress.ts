/**
 * What `till events ingest` shows on a terminal while it runs, as plain text: the Ink component in progress-bar.tsx
 * only prints these lines, so the wording, the bar and the arithmetic are tested without a terminal or React.
 */
export interface IngestProgress {
  /** What is read: the file's name, or `stdin`. */
  label: string;
  /** Bytes read so far from the input. */
  bytesRead: number;
  /**
   * The input's size in bytes when it is known before reading (a regular file). Null for stdin, a pipe or a
   * device: then there is no bar and no percentage, since any figure would be a guess.
   */
  totalBytes: number | null;
  /** Events in batches the daemon has answered; a refused batch is not counted. */
  sent: number;
  inserted: number;
  duplicates: number;
  elapsedMs: number;
  /** `done` after the last batch, `failed` when the run stopped on an error (which is reported below the line). */
  state: 'running' | 'done' | 'failed';
}

const BAR_WIDTH = 30;
/** Narrower than this, a bar says nothing the percentage beside it does not, so it is left out. */
const MIN_BAR_WIDTH = 10;

const count = (n: number) => n.toLocaleString('en-US');

/** 7s, 3m04s, 1h02m: whole units only, since the line is redrawn at most a few times a second. */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** Events a second over the whole run so far; a dash until there is something to divide. */
export function formatRate(sent: number, elapsedMs: number): string {
  if (sent === 0 || elapsedMs <= 0) return '– events/s';
  return `${count(Math.round((sent * 1000) / elapsedMs))} events/s`;
}

/**
 * The share of the input read, 0 to 1, or null when the size is unknown. A file that grows while it is read could
 * pass its size; the share stops at 1. Done means everything was read, whatever the byte count says.
 */
export function progressShare(progress: IngestProgress): number | null {
  if (progress.totalBytes === null) return null;
  if (progress.state === 'done') return 1;
  if (progress.totalBytes === 0) return 0;
  return Math.min(1, progress.bytesRead / progress.totalBytes);
}

/** 640 KiB, 12.3 MiB, 1.25 GiB: enough digits to see the bar's figure move, no more. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

/**
 * The lines to draw at a terminal `columns` wide. A file gets two: the bar with its percentage and bytes, then the
 * counts (`usage.jsonl [#####-----]  48%  12.3 MiB / 25.6 MiB` over `12,000 sent  11,500 inserted  …`), since
 * both on one line leave no room for a bar at 80 columns once the counts reach the millions. Stdin gets the counts
 * alone on one line, after its label. The bar shrinks to fit and is left out below MIN_BAR_WIDTH.
 */
export function progressLines(progress: IngestProgress, columns = 80): string[] {
  const counts = [
    `${count(progress.sent)} sent`,
    `${count(progress.inserted)} inserted`,
    `${count(progress.duplicates)} duplicates`,
    formatRate(progress.sent, progress.elapsedMs),
    progress.state === 'done'
      ? `done in ${formatElapsed(progress.elapsedMs)}`
      : progress.state === 'failed'
        ? `stopped after ${formatElapsed(progress.elapsedMs)}`
        : formatElapsed(progress.elapsedMs),
  ].join('  ');
  const share = progressShare(progress);
  if (share === null || progress.totalBytes === null) return [`${progress.label}  ${counts}`];
  // Floor, not round: 99.6% read is not 100% until the last batch has been answered.
  const percent = `${String(Math.floor(share * 100)).padStart(3)}%`;
  const read = progress.state === 'done' ? progress.totalBytes : Math.min(progress.bytesRead, progress.totalBytes);
  const bytes = `${formatBytes(read)} / ${formatBytes(progress.totalBytes)}`;
  const fixed = `${progress.label}  ${percent}  ${bytes}`;
  // The bar adds its width, two brackets and one space to `fixed`'s line (a space each side instead of two after
  // the label); one column more stays free, since some terminals wrap a line that fills the last column.
  const width = Math.min(BAR_WIDTH, columns - fixed.length - 3);
  if (width < MIN_BAR_WIDTH) return [fixed, counts];
  const filled = Math.floor(share * width);
  return [`${progress.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}  ${bytes}`, counts];
}
