import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellQuote, tmuxServer } from '../helpers/tmux.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createCustomer, createMerchant, type Merchant } from '../helpers/v1.js';
import { Sandbox, TILL_BIN } from './till.js';

// `till events ingest`'s progress: none at all when stderr is piped (what scripts and logs see), and on a real
// terminal (a tmux pane, read as a person would see it) a bar for a file, a counts line for stdin, and a bar
// finished as "stopped" above the error when a batch is refused. The text itself is in events-ingest-progress.test.tsx.

const { tmux, kill: killTmux } = tmuxServer('till-ingest');
const quote = shellQuote;

let daemon: TestDaemon;
let merchant: Merchant;
const cli = new Sandbox();
let run = 0;

beforeAll(async () => {
  daemon = await startTestDaemon();
  merchant = await createMerchant(daemon, { name: 'Ingest Co' });
  await createCustomer(merchant, 'u1');
});
afterAll(async () => {
  killTmux();
  cli.cleanup();
  await daemon?.stop();
});

/** A JSON Lines file of `count` events, unique per file; `bad` (1-based) names lines the daemon must refuse. */
function eventsFile(count: number, bad: number[] = []): string {
  run += 1;
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      name: 'llm',
      ...(bad.includes(i + 1) ? {} : { external_customer_id: 'u1' }),
      // A fifth of each file repeats an earlier id, so duplicates are counted too.
      external_id: `r${run}-e${i % Math.ceil(count * 0.8)}`,
      metadata: { tokens: 2 },
    }),
  );
  const file = join(cli.root, `usage-${run}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const env = () => ({ TILL_URL: daemon.url, TILL_TOKEN: merchant.token });
const ESCAPE = '\u001B';

describe('till events ingest with stderr piped', () => {
  it('writes no progress at all, only the summary', async () => {
    const result = await cli.run(['events', 'ingest', '--file', eventsFile(2500)], { env: env() });
    expect(result.exitCode, result.stderr).toBe(0);
    // (execa drops the last line break of each stream.)
    expect(result.stdout).toBe('2000 inserted, 500 duplicates');
    expect(result.stderr).toBe('read 2500 lines');
  });

  it('keeps --json to the totals on stdout and nothing on stderr', async () => {
    const result = await cli.run(['events', 'ingest', '--file', eventsFile(1200), '--json'], { env: env() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.json).toEqual({ inserted: 960, duplicates: 240 });
    expect(result.stderr).toBe('');
  });

  it('stops on a refused second batch with the line named and exit code 1, no bar in the way', async () => {
    const result = await cli.run(['events', 'ingest', '--file', eventsFile(1500, [1234])], { env: env() });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^till: the daemon refused a batch \(nothing of it was stored\):\nline 1234: /);
    expect(result.stderr).not.toContain(ESCAPE);
    expect(result.stderr).not.toContain('\r');

    const json = await cli.run(['events', 'ingest', '--file', eventsFile(1500, [1234]), '--json'], { env: env() });
    expect(json.exitCode).toBe(1);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: { code: 'failed', message: expect.stringContaining('line 1234') },
    });
  });
});

/** Runs `command` (a shell line calling `$TILL`) in a fresh 100×12 pane and returns the screen once it has ended. */
async function inTerminal(name: string, command: string): Promise<string> {
  const environment = cli.environment({ ...env(), TERM: 'xterm-256color', NODE: process.execPath, TILL_JS: TILL_BIN });
  const assignments = Object.entries(environment).map(([key, value]) => `${key}=${quote(value)}`);
  // The pane stays open after the command, so its last screen (and the exit code) can still be read.
  const script = `${command.replaceAll('$TILL', '"$NODE" "$TILL_JS"')}; echo "exit=$?"; sleep 60`;
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '100',
    '-y',
    '12',
    `exec env -i ${assignments.join(' ')} sh -c ${quote(script)}`,
  );
  let screen = '';
  for (let waited = 0; waited < 30_000; waited += 100) {
    screen = tmux('capture-pane', '-p', '-t', name);
    if (/exit=\d+/.test(screen)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  tmux('kill-session', '-t', name);
  if (process.env.SHOW_PANE) process.stdout.write(`${screen}\n`);
  return screen;
}

describe('till events ingest on a terminal (tmux)', () => {
  it('draws a bar of the file read, finished at 100% with the counts', async () => {
    const file = eventsFile(2500);
    const screen = await inTerminal('file', `$TILL events ingest --file ${quote(file)}`);
    expect(screen, screen).toContain('exit=0');
    // One finished bar, nothing left of earlier frames.
    expect(screen).toMatch(/^usage-\d+\.jsonl \[#{30}\] 100% {2}\d+ KiB \/ \d+ KiB$/m);
    expect(screen).toMatch(/^2,500 sent {2}2,000 inserted {2}500 duplicates {2}[\d,]+ events\/s {2}done in \d+s$/m);
    expect(screen.match(/\] +\d+%/g)).toHaveLength(1);
    expect(screen).toContain('read 2500 lines\n2000 inserted, 500 duplicates');
  });

  it('shows counts and rate for stdin, with no bar or percentage', async () => {
    const file = eventsFile(2500);
    const screen = await inTerminal('stdin', `cat ${quote(file)} | $TILL events ingest --file -`);
    expect(screen, screen).toContain('exit=0');
    expect(screen).toMatch(
      /^stdin {2}2,500 sent {2}2,000 inserted {2}500 duplicates {2}[\d,]+ events\/s {2}done in \d+s$/m,
    );
    expect(screen).not.toMatch(/%|\[#/);
  });

  it('leaves the bar stopped short of 100% above the error when a batch is refused, and exits 1', async () => {
    const file = eventsFile(1500, [1234]);
    const screen = await inTerminal('refused', `$TILL events ingest --file ${quote(file)}`);
    expect(screen, screen).toContain('exit=1');
    const lines = screen.split('\n');
    // The batch stored is lines 1-1000 of 1,500 of about the same length: some two thirds of the file.
    const bar = lines.findIndex((line) =>
      /^usage-\d+\.jsonl \[#{19,20}-{10,11}\] {2}6\d% {2}\d+ KiB \/ \d+ KiB$/.test(line),
    );
    expect(bar, screen).toBeGreaterThanOrEqual(0);
    expect(lines[bar + 1]).toMatch(
      /^1,000 sent {2}1,000 inserted {2}0 duplicates {2}[\d,]+ events\/s {2}stopped after \d+s$/,
    );
    expect(lines[bar + 2]).toBe('till: the daemon refused a batch (nothing of it was stored):');
    expect(lines[bar + 3]).toMatch(/^line 1234: /);
  });
});
