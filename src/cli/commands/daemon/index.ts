import { Option, type Command } from 'commander';
import { lazy, withJson } from '../../action.js';

const SETTINGS_HELP = `
The daemon reads its settings from the environment: TILL_DATA_DIR (default $XDG_DATA_HOME/till),
TILL_DATABASE_URL, TILL_HOST, TILL_PORT, TILL_BASE_URL, TILL_SECRET, TILL_TRUSTED_ORIGINS, TILL_LOG_LEVEL.`;

export function registerDaemonCommands(program: Command): void {
  const daemon = program
    .command('daemon')
    .description('run the Till daemon in the foreground, or manage it in the background');

  daemon
    .command('run')
    .description('run the daemon in the foreground until SIGINT or SIGTERM')
    // Set by `till daemon start`: a failure to start is then a log entry in daemon.log, not free text.
    .addOption(new Option('--detached').hideHelp())
    .addHelpText(
      'after',
      `${SETTINGS_HELP}
The daemon logs one JSON line per entry on stderr. Exits 1 when the SQLite database is already used by another
daemon, 2 when the settings are invalid.`,
    )
    .action(lazy(async () => (await import('./run.js')).run));

  withJson(daemon.command('start').description('start the daemon in the background and wait until it answers'))
    .addHelpText(
      'after',
      `${SETTINGS_HELP}
The process id is kept in <data dir>/daemon.pid, its address in <data dir>/daemon.json and its log (JSON lines) in
<data dir>/daemon.log. One daemon per data dir: starting it again at the same address succeeds and changes
nothing; at another address (TILL_HOST, TILL_PORT) it exits 1 naming where it runs. A daemon with another
TILL_DATA_DIR (and port) is a second daemon and starts.`,
    )
    .action(lazy(async () => (await import('./start.js')).run));

  withJson(
    daemon.command('stop').description('stop the background daemon (SIGTERM) and wait until it has exited'),
  ).action(lazy(async () => (await import('./stop.js')).run));

  withJson(daemon.command('status').description('tell whether the background daemon is running'))
    .addHelpText(
      'after',
      `
Exits 0 when the daemon is running and answers at the address it was started on, and 1 when it is stopped or
not answering (as \`gh auth status\` does), also with --json, so scripts can write
\`till daemon status >/dev/null || till daemon start\`.`,
    )
    .action(lazy(async () => (await import('./status.js')).run));
}
