import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import type { UserWire } from '../../../core/auth/schemas.js';
import { call, type Target } from '../../context.js';
import { storeSession } from '../../credentials.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { startLoopback } from '../../loopback.js';
import { info, printJson } from '../../output.js';

export interface WebLoginOptions {
  provider: string;
  browser: boolean;
  timeout: string;
  json?: boolean;
}

/** Opening a browser only makes sense for a person at a terminal with a display. */
function canOpenBrowser(): boolean {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return false;
  if (process.platform === 'linux') return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
  return true;
}

function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
    // The URL is printed anyway, so a missing opener is not an error.
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // As above.
  }
}

function parseTimeout(raw: string): number {
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds <= 0)
    throw new UsageError(`--timeout must be a positive number of seconds: ${raw}`);
  return seconds;
}

/**
 * Gives up at the timeout (exit 1) or at Ctrl-C (exit 2, like gh). The SIGINT listener is in place before the URL is
 * printed: until a listener exists the signal kills the process outright, without the exit code.
 */
function stopper(seconds: number): { stopped: Promise<never>; startTimer(): void; dispose(): void } {
  let timer: NodeJS.Timeout | undefined;
  let fail!: (error: CliError) => void;
  const stopped = new Promise<never>((_resolve, reject) => (fail = reject));
  // Nobody may be racing it yet; an unhandled rejection would end the process with the wrong message.
  stopped.catch(() => undefined);
  const onInterrupt = () => fail(new CliError('sign-in interrupted', EXIT.usage));
  process.once('SIGINT', onInterrupt);
  return {
    stopped,
    startTimer() {
      timer = setTimeout(
        () =>
          fail(
            new CliError(
              `timed out after ${seconds}s waiting for the browser sign-in; run \`till login --provider\` again`,
            ),
          ),
        seconds * 1000,
      );
    },
    dispose() {
      clearTimeout(timer);
      process.off('SIGINT', onInterrupt);
    },
  };
}

/**
 * `till login --provider`: RFC 8252 with a PKCE-style hand-off. The daemon sends the browser to our loopback with
 * a one-time code; only this process knows the verifier that turns it into a session token.
 */
export async function loginWithProvider(target: Target, opts: WebLoginOptions): Promise<void> {
  const seconds = parseTimeout(opts.timeout);
  const verifier = randomBytes(32).toString('base64url');
  const cliChallenge = createHash('sha256').update(verifier).digest('base64url');
  const stop = stopper(seconds);
  const loopback = await startLoopback();
  try {
    const body = { provider: opts.provider, callbackURL: loopback.callbackURL, cliChallenge, disableRedirect: true };
    const { url } = await Promise.race([
      call<{ url: string }>(target, 'POST', '/api/auth/sign-in/social', { auth: { kind: 'none' }, body }),
      stop.stopped,
    ]);
    info(`Open this URL in a browser to sign in with ${opts.provider}:\n  ${url}`);
    if (opts.browser && canOpenBrowser()) openBrowser(url);
    info('Waiting for the browser...');
    stop.startTimer();
    const outcome = await Promise.race([loopback.result, stop.stopped]);
    if ('error' in outcome)
      throw new CliError(
        `sign-in with ${opts.provider} failed: ${outcome.error}${outcome.description ? ` (${outcome.description})` : ''}`,
      );
    const result = await call<{ token: string; user: UserWire }>(target, 'POST', '/api/auth/cli/exchange', {
      auth: { kind: 'none' },
      body: { code: outcome.code, codeVerifier: verifier },
    });
    storeSession(target, { token: result.token, email: result.user.email });
    if (opts.json) {
      printJson({ url: target.url, profile: target.profile, user: result.user });
      return;
    }
    info(`Signed in as ${result.user.name} <${result.user.email}> (profile "${target.profile}", ${target.url})`);
  } finally {
    stop.dispose();
    loopback.close();
  }
}
