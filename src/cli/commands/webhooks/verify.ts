import { readFileSync } from 'node:fs';
import { verifyDelivery } from '../../../core/webhooks/signer.js';
import type { Invocation } from '../../action.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { printLine } from '../../output.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function run({ opts }: Invocation<{ secretFile: string; at?: string }>): Promise<number> {
  let secret: string;
  try {
    secret = readFileSync(opts.secretFile, 'utf8').trim();
  } catch (error) {
    throw new CliError(`cannot read ${opts.secretFile}: ${(error as Error).message}`);
  }
  if (!secret) throw new UsageError(`${opts.secretFile} is empty`);
  if (opts.at !== undefined && !/^\d+$/.test(opts.at)) throw new UsageError('--at takes unix seconds');
  let capture: { headers?: Record<string, string>; body?: unknown };
  try {
    capture = JSON.parse(await readStdin());
  } catch {
    throw new UsageError('stdin must be JSON: {"headers": {...}, "body": "<raw body>"}');
  }
  if (typeof capture.body !== 'string' || typeof capture.headers !== 'object' || capture.headers === null) {
    throw new UsageError('stdin must be JSON: {"headers": {...}, "body": "<raw body>"} with the body as a string');
  }
  const now = opts.at !== undefined ? Number(opts.at) : Math.floor(Date.now() / 1000);
  const result = verifyDelivery(capture.headers, capture.body, secret, now);
  if (result.ok) {
    printLine('authentic');
    return EXIT.ok;
  }
  printLine(`not authentic: ${result.message}`);
  return EXIT.failure;
}
