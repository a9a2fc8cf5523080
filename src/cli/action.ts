import type { Command } from 'commander';
import type { GlobalOptions } from './target.js';

export interface Invocation<Options = Record<string, unknown>> {
  /** Positional arguments, after commander's parsing. */
  args: unknown[];
  opts: Options;
  globals: GlobalOptions;
  command: Command;
}

/** A command's implementation; a returned number becomes the exit code (status commands exit 1 when "no"). */

export type Run = (invocation: Invocation<any>) => Promise<number | void>;

/**
 * Wraps a command's implementation so its module (and whatever it imports: undici, the daemon, Knex) is loaded
 * only when that command runs. `till --help` and typos stay fast and never touch the heavy dependencies.
 */
export function lazy(load: () => Promise<Run>) {
  return async (...params: unknown[]): Promise<void> => {
    const command = params[params.length - 1] as Command;
    const run = await load();
    const code = await run({
      args: command.processedArgs,
      opts: command.opts(),
      globals: command.optsWithGlobals(),
      command,
    });
    if (typeof code === 'number') process.exitCode = code;
  };
}

/** Every command that prints data takes --json; the flag is added in one place so its wording never drifts. */
export function withJson(command: Command): Command {
  return command.option('--json', 'print machine-readable JSON on stdout');
}

/** Create commands take -q: only the new id on stdout and nothing on stderr, for `id=$(till … create … -q)`. */
export function withQuiet(command: Command): Command {
  return command.option('-q, --quiet', 'print only the id of what was created, nothing else (for scripts)');
}
