import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import type { EventsIngestResponse } from '../../../core/events/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgIdOf, signedIn, type Target } from '../../context.js';
import { ApiError, CliError } from '../../errors.js';
import { info, printJson, printLine } from '../../output.js';
import type { ProgressHandle } from './progress-bar.js';

const BATCH = 1000;

interface Options {
  file: string;
  org?: string;
  json?: boolean;
}

/**
 * Streams the file in batches of 1,000 (the most one call takes), so a file of any size is read once and never held
 * whole. On a terminal, stderr shows a bar of the file read (or, from stdin, the counts alone); a refused batch stops
 * the run, naming the file's lines the daemon refused.
 */
export async function run({ opts, globals }: Invocation<Options>): Promise<number> {
  const target = signedIn(globals);
  const organizationId = await orgIdOf(target, opts.org);
  const fromStdin = opts.file === '-';
  // Before the stream is opened: an error it emits while nothing listens yet (a missing file) would crash the CLI.
  const progress = await startProgress(opts.file, fromStdin);
  const input = fromStdin ? process.stdin : createReadStream(opts.file);
  const lines = createInterface({ input, crlfDelay: Infinity });
  const total: EventsIngestResponse = { inserted: 0, duplicates: 0 };
  let batch: Array<{ line: number; event: Record<string, unknown> }> = [];
  let lineNumber = 0;
  let sent = 0;
  // Bytes of the lines taken so far (each with its line break), so the bar says how far into the file the sent events
  // reach. The stream's own bytesRead runs up to a 64 KiB chunk ahead, which on a small file would show 100% while
  // the first batch is still out, or a refused batch "stopped" at 100%.
  let bytesTaken = 0;
  const send = async () => {
    if (batch.length === 0) return;
    const result = await postBatch(target, batch, organizationId);
    total.inserted += result.inserted;
    total.duplicates += result.duplicates;
    sent += batch.length;
    batch = [];
    progress?.update({ bytesRead: bytesTaken, sent, ...total });
  };
  try {
    for await (const text of lines) {
      lineNumber += 1;
      // Only counted with a bar to draw; a CRLF file comes out a byte a line short, which "done" makes up at the end.
      if (progress) bytesTaken += Buffer.byteLength(text) + 1;
      if (text.trim() === '') continue;
      let event: unknown;
      try {
        event = JSON.parse(text);
      } catch {
        throw new CliError(`line ${lineNumber}: not valid JSON`);
      }
      if (typeof event !== 'object' || event === null || Array.isArray(event))
        throw new CliError(`line ${lineNumber}: an event is a JSON object`);
      batch.push({ line: lineNumber, event: event as Record<string, unknown> });
      if (batch.length === BATCH) await send();
    }
    await send();
  } catch (error) {
    // The bar is finished as "stopped" before index.ts prints the error, so the message starts on a line of its own
    // and the counts above it say how much was stored before the refused batch.
    progress?.finish('failed');
    throw error;
  }
  progress?.finish('done');
  if (opts.json) printJson(total);
  else {
    info(`read ${lineNumber} lines`);
    printLine(`${total.inserted} inserted, ${total.duplicates} duplicates`);
  }
  return 0;
}

/**
 * The bar, only for a person at a terminal: piped or redirected stderr (and TERM=dumb, which cannot move the cursor
 * back over a line) gets nothing until the summary, so logs stay machine-clean. Ink and React load only here.
 */
async function startProgress(file: string, fromStdin: boolean): Promise<ProgressHandle | null> {
  if (!process.stderr.isTTY || process.env.TERM === 'dumb') return null;
  let totalBytes: number | null = null;
  if (!fromStdin) {
    try {
      const stats = await stat(file);
      // A FIFO or device (`--file <(zcat usage.jsonl.gz)`) has no size to measure against.
      if (stats.isFile()) totalBytes = stats.size;
    } catch {
      // The read stream fails on the same path with the same error, reported as before; no bar for it.
      return null;
    }
  }
  const { showIngestProgress } = await import('./progress-bar.js');
  return showIngestProgress(fromStdin ? 'stdin' : basename(file), totalBytes);
}

async function postBatch(
  target: Target,
  batch: Array<{ line: number; event: Record<string, unknown> }>,
  organizationId: string | undefined,
): Promise<EventsIngestResponse> {
  const events = batch.map(({ event }) => (organizationId ? { organization_id: organizationId, ...event } : event));
  try {
    return await call<EventsIngestResponse>(target, 'POST', '/v1/events/ingest', { body: { events } });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 422) throw error;
    // The daemon names the batch's indexes (`events.3.customer_id: …`); the person wants the file's lines.
    const explained = error.serverMessage
      .split('; ')
      .map((issue) =>
        issue.replace(/^events\.(\d+)\.?/, (_, index: string) => `line ${batch[Number(index)]?.line ?? '?'}: `),
      )
      .join('\n');
    throw new CliError(`the daemon refused a batch (nothing of it was stored):\n${explained}`);
  }
}
