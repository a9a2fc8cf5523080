import { createInterface } from 'node:readline/promises';
import { CliError, EXIT, UsageError } from './errors.js';

/**
 * Something irreversible needs a yes from someone at a terminal; a script (no terminal) must say --yes, since nobody
 * could answer. Checked before anything is sent, so a script without --yes fails the same way whatever the target.
 */
export function requireConfirmable(yes: boolean | undefined, refusal: string): void {
  if (!yes && !process.stdin.isTTY) throw new UsageError(refusal);
}

/** One line typed at the terminal; the question goes to stderr, so stdout stays data. */
async function ask(question: string): Promise<string> {
  const reader = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await reader.question(question)).trim();
  } finally {
    reader.close();
  }
}

/** y/N: anything but an explicit yes keeps things as they are. */
export async function confirmYes(question: string): Promise<boolean> {
  return /^y(es)?$/i.test(await ask(`${question} [y/N] `));
}

/** For deleting for good: the person types the thing's name back (`ignoreCase` for e-mail addresses). */
export async function confirmByTyping(
  question: string,
  expected: string,
  options: { ignoreCase?: boolean } = {},
): Promise<void> {
  const answer = await ask(question);
  const same = options.ignoreCase ? answer.toLowerCase() === expected.toLowerCase() : answer === expected;
  if (!same) throw new CliError('not confirmed; nothing was deleted', EXIT.usage);
}

export interface SecretPrompt {
  /** What a person at a terminal is asked, e.g. "Password". */
  label: string;
  /** Ask twice at a terminal (new passwords), since nobody can see a typo. */
  confirm?: boolean;
}

/**
 * Reads one or more passwords: at a terminal from hidden prompts, in scripts one per line from stdin with
 * --password-stdin. Never from a flag or an environment variable: those end up in shell history, `ps` and logs.
 */
export async function readSecrets(prompts: SecretPrompt[], options: { passwordStdin?: boolean }): Promise<string[]> {
  if (options.passwordStdin) return readStdinLines(prompts);
  if (!process.stdin.isTTY) {
    throw new UsageError('a password is needed but stdin is not a terminal; pass it on stdin with --password-stdin');
  }
  const values: string[] = [];
  for (const prompt of prompts) {
    const value = await promptHidden(`${prompt.label}: `);
    if (!value) throw new UsageError(`${prompt.label} must not be empty`);
    if (prompt.confirm && (await promptHidden(`${prompt.label} (again): `)) !== value)
      throw new CliError('the two entries do not match');
    values.push(value);
  }
  return values;
}

async function readStdinLines(prompts: SecretPrompt[]): Promise<string[]> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) text += chunk as string;
  // Only line breaks are stripped: spaces at either end may be part of a password.
  const lines = text.split(/\r?\n/);
  const wanted = prompts.map((prompt) => prompt.label.toLowerCase());
  const values = prompts.map((_, index) => lines[index] ?? '');
  const missing = values.findIndex((value) => value === '');
  if (missing !== -1) {
    const layout = prompts.length === 1 ? `the ${wanted[0]}` : `${prompts.length} lines: ${wanted.join(', then ')}`;
    throw new UsageError(
      `--password-stdin expects ${layout} on stdin; line ${missing + 1} (${wanted[missing]}) is missing or empty`,
    );
  }
  return values;
}

// Bracketed paste wraps pasted text in these markers when the terminal has the mode on.
const PASTE_MARKERS = /\u001b\[20[01]~/g;

function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk.replace(PASTE_MARKERS, '')) {
        if (char === '\r' || char === '\n') return finish();
        // Ctrl-C and Ctrl-D on an empty line cancel, which gh reports as exit 2.
        if (char === '\u0003' || (char === '\u0004' && value === ''))
          return finish(new CliError('cancelled', EXIT.usage));
        if (char === '\u007f' || char === '\b') value = Array.from(value).slice(0, -1).join('');
        else if (char >= ' ') value += char;
      }
    };
    process.stderr.write(question);
    stdin.setEncoding('utf8');
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
