import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';

/**
 * A tmux server of the test's own (-L), so that a CLI runs in a real terminal whose pane is read as a person would
 * see it, and nothing else's sessions are touched.
 */
export function tmuxServer(prefix: string) {
  const socket = `${prefix}-${randomUUID().slice(0, 8)}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return {
    tmux,
    kill() {
      try {
        tmux('kill-server');
      } catch {
        // No pane was opened, or the server ended with its last session.
      }
    },
  };
}

/** A word for sh, in single quotes. */
export const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
