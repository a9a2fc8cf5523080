import { afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';

/** The built CLI, run the way a user runs it (`npm test` builds first). */
export const TILL_BIN = fileURLToPath(new URL('../../bin/till.js', import.meta.url));

export interface TillResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  json: any;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Written to stdin (for --password-stdin); without it stdin is closed and not a terminal. */
  input?: string;
  /** Extra `node` flags before the script, e.g. --import. */
  nodeArgs?: string[];
}

/**
 * A sandbox for CLI runs: its own HOME, config and data directories, and an environment built from scratch so the
 * developer's own TILL_* variables and ~/.config/till never leak into a test.
 */
export class Sandbox {
  readonly root = mkdtempSync(join(tmpdir(), 'till-cli-'));
  readonly configHome = join(this.root, 'config');
  readonly dataHome = join(this.root, 'data');

  constructor(readonly env: Record<string, string | undefined> = {}) {}

  get configFile(): string {
    return join(this.configHome, 'till', 'config.json');
  }

  environment(extra: Record<string, string | undefined> = {}): Record<string, string> {
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      HOME: this.root,
      XDG_CONFIG_HOME: this.configHome,
      XDG_DATA_HOME: this.dataHome,
      ...this.env,
      ...extra,
    };
    return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  }

  spawn(args: string[], options: RunOptions = {}): ResultPromise<{ reject: false; extendEnv: false }> {
    return execa(process.execPath, [...(options.nodeArgs ?? []), TILL_BIN, ...args], {
      reject: false,
      extendEnv: false,
      env: this.environment(options.env),
      cwd: this.root,
      ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    }) as ResultPromise<{ reject: false; extendEnv: false }>;
  }

  async run(args: string[], options: RunOptions = {}): Promise<TillResult> {
    const result = await this.spawn(args, options);
    const stdout = String(result.stdout ?? '');
    let json: unknown = undefined;
    if (args.includes('--json') && stdout.trim()) {
      try {
        json = JSON.parse(stdout);
      } catch {
        // Left undefined; the test's own assertion on `json` reports it.
      }
    }
    return { exitCode: result.exitCode ?? -1, stdout, stderr: String(result.stderr ?? ''), json };
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A port that was free a moment ago: listen on 0, note the port, close. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const PASSWORD = 'correct horse battery';

/**
 * Sandboxes for one test file, each with `base()` in its environment (read when the sandbox is made, so it may name
 * a daemon started later), all cleaned up after the file.
 */
export function useSandboxes(
  base: () => Record<string, string | undefined> = () => ({}),
): (env?: Record<string, string | undefined>) => Sandbox {
  const created: Sandbox[] = [];
  afterAll(() => {
    for (const sandbox of created) sandbox.cleanup();
  });
  return (env = {}) => {
    const sandbox = new Sandbox({ ...base(), ...env });
    created.push(sandbox);
    return sandbox;
  };
}
