import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { IngestProgressBar } from '../../src/cli/commands/events/progress-bar.js';
import {
  formatBytes,
  formatElapsed,
  progressLines,
  type IngestProgress,
} from '../../src/cli/commands/events/progress.js';

// The text `till events ingest` draws on a terminal, from the pure function and through Ink. The command itself, on
// a real terminal and piped, is in events-ingest.test.ts.

afterEach(() => cleanup());

const MIB = 1024 * 1024;

const fileRun = (overrides: Partial<IngestProgress> = {}): IngestProgress => ({
  label: 'usage.jsonl',
  bytesRead: 0,
  totalBytes: 40 * MIB,
  sent: 0,
  inserted: 0,
  duplicates: 0,
  elapsedMs: 0,
  state: 'running',
  ...overrides,
});

describe('till events ingest progress (file)', () => {
  it('moves the bar and the percentage with the bytes read, up to 100% when done', () => {
    const frames = [
      fileRun(),
      fileRun({ bytesRead: 10 * MIB, sent: 100_000, inserted: 100_000, elapsedMs: 2_000 }),
      fileRun({ bytesRead: 39.8 * MIB, sent: 400_000, inserted: 390_000, duplicates: 10_000, elapsedMs: 8_000 }),
      fileRun({
        bytesRead: 40 * MIB,
        sent: 401_234,
        inserted: 391_234,
        duplicates: 10_000,
        elapsedMs: 8_100,
        state: 'done',
      }),
    ].map((progress) => progressLines(progress, 80));
    expect(frames).toEqual([
      [
        'usage.jsonl [------------------------------]   0%  0 KiB / 40.0 MiB',
        '0 sent  0 inserted  0 duplicates  – events/s  0s',
      ],
      [
        'usage.jsonl [#######-----------------------]  25%  10.0 MiB / 40.0 MiB',
        '100,000 sent  100,000 inserted  0 duplicates  50,000 events/s  2s',
      ],
      [
        // 99.5% read is floored: it says 99% until the last batch has been answered.
        'usage.jsonl [#############################-]  99%  39.8 MiB / 40.0 MiB',
        '400,000 sent  390,000 inserted  10,000 duplicates  50,000 events/s  8s',
      ],
      [
        'usage.jsonl [##############################] 100%  40.0 MiB / 40.0 MiB',
        '401,234 sent  391,234 inserted  10,000 duplicates  49,535 events/s  done in 8s',
      ],
    ]);
  });

  it('says where a failed run stopped, short of 100%', () => {
    const failed = fileRun({ bytesRead: 25 * MIB, sent: 1000, inserted: 1000, elapsedMs: 61_000, state: 'failed' });
    expect(progressLines(failed, 80)).toEqual([
      'usage.jsonl [##################------------]  62%  25.0 MiB / 40.0 MiB',
      '1,000 sent  1,000 inserted  0 duplicates  16 events/s  stopped after 1m01s',
    ]);
  });

  it('narrows the bar to the terminal, and drops it when even a short one would not fit', () => {
    const progress = fileRun({ bytesRead: 20 * MIB, sent: 1000, inserted: 1000, elapsedMs: 1000 });
    expect(progressLines(progress, 60)[0]).toBe('usage.jsonl [#########----------]  50%  20.0 MiB / 40.0 MiB');
    expect(progressLines(progress, 50)[0]).toBe('usage.jsonl   50%  20.0 MiB / 40.0 MiB');
  });

  it('never passes 100% or the file size when the file grows while it is read', () => {
    const [line] = progressLines(fileRun({ bytesRead: 50 * MIB, sent: 3000, elapsedMs: 1000 }), 80);
    expect(line).toContain('] 100%  40.0 MiB / 40.0 MiB');
  });
});

describe('till events ingest progress (stdin)', () => {
  it('shows counts, rate and elapsed time on one line, and no bar or percentage it cannot know', () => {
    const stdin: IngestProgress = { ...fileRun(), label: 'stdin', totalBytes: null };
    expect(progressLines(stdin, 80)).toEqual(['stdin  0 sent  0 inserted  0 duplicates  – events/s  0s']);
    const later = { ...stdin, sent: 5000, inserted: 4000, duplicates: 1000, elapsedMs: 2500 };
    expect(progressLines(later, 80)).toEqual([
      'stdin  5,000 sent  4,000 inserted  1,000 duplicates  2,000 events/s  2s',
    ]);
    const done = progressLines({ ...later, state: 'done' }, 80);
    expect(done).toEqual(['stdin  5,000 sent  4,000 inserted  1,000 duplicates  2,000 events/s  done in 2s']);
    expect(done.join('\n')).not.toMatch(/%|\[|KiB|MiB/);
  });
});

describe('progress figures', () => {
  it('gives elapsed time in whole seconds, then minutes, then hours', () => {
    expect([999, 59_000, 184_000, 3_720_000].map(formatElapsed)).toEqual(['0s', '59s', '3m04s', '1h02m']);
  });

  it('gives sizes in KiB, MiB and GiB', () => {
    expect([512, 640 * 1024, 12.34 * MIB, 1.25 * 1024 * MIB].map(formatBytes)).toEqual([
      '1 KiB',
      '640 KiB',
      '12.3 MiB',
      '1.25 GiB',
    ]);
  });
});

describe('IngestProgressBar (Ink)', () => {
  it('draws the lines, and redraws them as the run moves on', () => {
    const { lastFrame, rerender } = render(<IngestProgressBar progress={fileRun()} />);
    expect(lastFrame()).toBe(
      [
        'usage.jsonl [------------------------------]   0%  0 KiB / 40.0 MiB',
        '0 sent  0 inserted  0 duplicates  – events/s  0s',
      ].join('\n'),
    );
    rerender(
      <IngestProgressBar
        progress={fileRun({ bytesRead: 40 * MIB, sent: 2600, inserted: 2600, elapsedMs: 1300, state: 'done' })}
      />,
    );
    expect(lastFrame()).toMatch(/\[#{30}\] 100% {2}40\.0 MiB \/ 40\.0 MiB\n2,600 sent {2}2,600 inserted .*done in 1s$/);
  });

  it('keeps each line to one row, cut at the terminal width, however long the label', () => {
    const { lastFrame } = render(<IngestProgressBar progress={fileRun({ label: 'x'.repeat(200) })} />);
    expect(lastFrame()!.split('\n')).toHaveLength(2);
  });
});
