import type { CompletionNode } from './tree.js';

/**
 * The completion scripts. The first word (the command) is completed from the list written into the script, at no
 * cost; everything after it asks `till __complete`, which walks the same command tree and asks the daemon for ids
 * with a short timeout, so the script stays right when commands change without being regenerated.
 */

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

// Words are command names (letters, digits, dashes); quoting is still done, for a description that has a quote.
const single = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(commands: string[]): string {
  return `# till completion for bash. Load it in ~/.bashrc:  source <(till completion bash)
_till_commands=${single(commands.join(' '))}
_till() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  if [[ $COMP_CWORD -eq 1 && $cur != -* ]]; then
    COMPREPLY=($(compgen -W "$_till_commands" -- "$cur"))
    return 0
  fi
  local IFS=$'\\n'
  COMPREPLY=($(till __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _till till
`;
}

function zsh(commands: string[]): string {
  return `#compdef till
# till completion for zsh. Load it in ~/.zshrc (after compinit):  source <(till completion zsh)
_till() {
  local -a candidates
  if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then
    candidates=(${commands.join(' ')})
  else
    candidates=("\${(@f)$(till __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  fi
  compadd -- \${candidates:#}
}
compdef _till till
`;
}

function fish(root: CompletionNode): string {
  const lines = [
    '# till completion for fish. Load it:  till completion fish > ~/.config/fish/completions/till.fish',
    'function __till_complete',
    '    set -l words (commandline -opc)[2..-1] (commandline -ct)',
    '    till __complete -- $words 2>/dev/null',
    'end',
    'complete -c till -f',
    ...root.subcommands.map((sub) => `complete -c till -n __fish_use_subcommand -a ${sub.name}${describe(sub)}`),
    "complete -c till -n 'not __fish_use_subcommand' -a '(__till_complete)'",
  ];
  return `${lines.join('\n')}\n`;
}

function describe(node: CompletionNode): string {
  return node.description ? ` -d ${single(node.description)}` : '';
}

export function completionScript(shell: Shell, root: CompletionNode): string {
  const commands = root.subcommands.map((sub) => sub.name);
  if (shell === 'bash') return bash(commands);
  if (shell === 'zsh') return zsh(commands);
  return fish(root);
}
