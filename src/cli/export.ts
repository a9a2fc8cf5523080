import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { request } from 'undici';
import { bearer, call, type Target } from './context.js';
import { ApiError, CliError, EXIT } from './errors.js';

/**
 * `till orders|subscriptions|customers export`: the daemon's CSV written through as it arrives (a million rows are
 * never held here either), to stdout or `--output`. At a terminal, stderr shows a progress bar against the count
 * the list endpoint reports for the same filters.
 */
export interface ExportRequest {
  /** `/v1/orders/export` and the list it counts against, `/v1/orders/`. */
  exportPath: string;
  listPath: string;
  query: URLSearchParams;
  output?: string;
}

export async function exportCsv(target: Target, job: ExportRequest): Promise<void> {
  const progress = process.stderr.isTTY ? await progressBar(target, job) : null;
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(`${target.url}${job.exportPath}?${job.query}`, {
      headers: { authorization: `Bearer ${bearer(target)}`, accept: 'text/csv' },
      headersTimeout: 120_000,
      bodyTimeout: 120_000,
    });
  } catch (error) {
    throw new CliError(`cannot reach the Till daemon at ${target.url}: ${(error as Error).message}`);
  }
  if (response.statusCode >= 400) {
    const text = await response.body.text();
    let detail = `HTTP ${response.statusCode}`;
    try {
      const json = JSON.parse(text) as { detail?: unknown; error?: unknown };
      detail = Array.isArray(json.detail)
        ? json.detail
            .map((issue: { loc?: unknown[]; msg?: string }) => `${issue.loc?.slice(1).join('.')}: ${issue.msg}`)
            .join('; ')
        : String(json.detail ?? detail);
    } catch {
      // Not JSON: the status line says enough.
    }
    throw new ApiError(
      response.statusCode,
      undefined,
      detail,
      response.statusCode === 401 ? EXIT.notSignedIn : EXIT.failure,
    );
  }
  const out: Writable = job.output ? createWriteStream(job.output) : process.stdout;
  let quoted = false;
  let rows = -1; // the header line is not a row
  for await (const chunk of response.body) {
    const text = (chunk as Buffer).toString('utf8');
    // Records end at a line break outside quotes; a quote inside a cell is doubled, so parity tells where we are.
    for (let i = 0; i < text.length; i++) {
      const char = text.charCodeAt(i);
      if (char === 34) quoted = !quoted;
      else if (char === 10 && !quoted) rows++;
    }
    if (!out.write(chunk)) await once(out, 'drain');
    progress?.(rows);
  }
  if (job.output) {
    out.end();
    await once(out, 'finish');
  }
  progress?.(rows, true);
}

async function progressBar(target: Target, job: ExportRequest): Promise<(rows: number, done?: boolean) => void> {
  const counted = new URLSearchParams();
  for (const [name, value] of job.query) if (name !== 'columns' && name !== 'timezone') counted.append(name, value);
  counted.set('limit', '1');
  const total = await call<{ pagination?: { total_count?: number } }>(target, 'GET', `${job.listPath}?${counted}`)
    .then((page) => page.pagination?.total_count ?? 0)
    .catch(() => 0);
  let shown = 0;
  return (rows, done = false) => {
    const now = Date.now();
    if (!done && now - shown < 100) return;
    shown = now;
    const width = 30;
    const share = total > 0 ? Math.min(1, rows / total) : done ? 1 : 0;
    const filled = Math.round(share * width);
    const count =
      total > 0 ? `${rows.toLocaleString('en-US')}/${total.toLocaleString('en-US')}` : rows.toLocaleString('en-US');
    process.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${count} rows`);
    if (done) process.stderr.write('\n');
  };
}
