import type { Command } from 'commander';
import { lazy } from '../../action.js';

export function registerCompletionCommands(program: Command): void {
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      `
Commands, subcommands and options complete from till's own command tree; product and order ids (\`till products
show <TAB>\`, \`--product <TAB>\`) from the daemon, for the active organization, when it answers within a second.
  bash:  source <(till completion bash)          (in ~/.bashrc)
  zsh:   source <(till completion zsh)           (in ~/.zshrc, after compinit)
  fish:  till completion fish > ~/.config/fish/completions/till.fish`,
    )
    .action(lazy(async () => (await import('./script.js')).run));
  // What the scripts call: the candidates for the last word, one a line. Everything after it is the typed words,
  // options included, so they are taken as arguments rather than parsed.
  program
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(lazy(async () => (await import('./complete.js')).run));
}
