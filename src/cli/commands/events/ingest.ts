import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { EventsIngestResponse } from '../../../core/events/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgIdOf, signedIn, type Target } from '../../context.js';
import { ApiError, CliError } from '../../errors.js';
import { info, printJson, printLine } from '../../output.js';

const BATCH = 1000;

interface Options {
  file: string;
  org?: string;
  json?: boolean;
}

/**
 * Streams the file in batches of 1,000 (the most one call takes), so a file of any size is read once and never held
 * whole. Progress goes to stderr; a refused batch stops the run, naming the file's lines the daemon refused.
 */
export async function run({ opts, globals }: Invocation<Options>): Promise<number> {
  const target = signedIn(globals);
  const organizationId = await orgIdOf(target, opts.org);
  const input = opts.file === '-' ? process.stdin : createReadStream(opts.file);
  const lines = createInterface({ input, crlfDelay: Infinity });
  const total: EventsIngestResponse = { inserted: 0, duplicates: 0 };
  let batch: Array<{ line: number; event: Record<string, unknown> }> = [];
  let lineNumber = 0;
  const send = async () => {
    if (batch.length === 0) return;
    const result = await postBatch(target, batch, organizationId);
    total.inserted += result.inserted;
    total.duplicates += result.duplicates;
    batch = [];
    if (process.stderr.isTTY) process.stderr.write(`\r${total.inserted} inserted, ${total.duplicates} duplicates`);
  };
  try {
    for await (const text of lines) {
      lineNumber += 1;
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
  } finally {
    if (process.stderr.isTTY) process.stderr.write('\n');
  }
  if (opts.json) printJson(total);
  else {
    info(`read ${lineNumber} lines`);
    printLine(`${total.inserted} inserted, ${total.duplicates} duplicates`);
  }
  return 0;
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
