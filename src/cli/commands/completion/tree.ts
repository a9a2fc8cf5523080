import { Help, type Command } from 'commander';

/**
 * Shell completion from commander's own command tree, so it never drifts from what `till` accepts: the commands,
 * subcommands and options as registered (hidden ones left out). What is typed is walked down this tree; what can
 * come next is a subcommand, an option, or an id the daemon knows (ids.ts).
 */

export interface CompletionOption {
  names: string[];
  takesValue: boolean;
  /** The value's placeholder, e.g. `<id>`: `--product <id>` completes product ids. */
  value: string | null;
}

export interface CompletionNode {
  name: string;
  description: string;
  aliases: string[];
  subcommands: CompletionNode[];
  options: CompletionOption[];
  /** The names of its positional arguments, in order (`id`, `id|url`, …). */
  args: string[];
}

const help = new Help();

export function completionTree(command: Command): CompletionNode {
  return {
    name: command.name(),
    description: command.summary() || (command.description().split('\n')[0] ?? ''),
    aliases: command.aliases(),
    subcommands: help
      .visibleCommands(command)
      .filter((sub) => sub.name() !== 'help')
      .map(completionTree),
    options: help.visibleOptions(command).map((option) => ({
      names: [option.long, option.short].filter((name): name is string => Boolean(name)),
      takesValue: option.required || option.optional,
      value: option.required || option.optional ? (/[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? null) : null,
    })),
    args: command.registeredArguments.map((argument) => argument.name()),
  };
}

/** Ids the daemon can list cheaply for completion. */
export type IdKind = 'products' | 'orders';

export type Completion = { kind: 'words'; words: string[] } | { kind: 'ids'; resource: IdKind; prefix: string };

const ID_KINDS: Record<string, IdKind> = {
  products: 'products',
  orders: 'orders',
  product: 'products',
  order: 'orders',
};

function findOption(options: CompletionOption[], word: string): CompletionOption | undefined {
  return options.find((option) => option.names.includes(word));
}

/**
 * What may follow `words` (everything typed after `till`; the last one is the word being completed, maybe empty).
 * Options seen so far are those of the command path and its parents, as commander accepts them.
 */
export function complete(root: CompletionNode, words: string[]): Completion {
  const current = words[words.length - 1] ?? '';
  const path: CompletionNode[] = [root];
  let node = root;
  let positional = 0;
  let pendingValue: CompletionOption | null = null;
  for (const word of words.slice(0, -1)) {
    if (pendingValue) {
      pendingValue = null;
      continue;
    }
    if (word.startsWith('-')) {
      const option = findOption(
        path.flatMap((step) => step.options),
        word,
      );
      if (option?.takesValue && !word.includes('=')) pendingValue = option;
      continue;
    }
    const sub = node.subcommands.find((candidate) => candidate.name === word || candidate.aliases.includes(word));
    if (sub && positional === 0) {
      node = sub;
      path.push(sub);
    } else positional++;
  }
  const pick = (candidates: string[]): Completion => ({
    kind: 'words',
    words: candidates.filter((candidate) => candidate.startsWith(current)),
  });

  if (pendingValue) {
    // `--product <id>`, `--order <id>`: the daemon's ids; other values are the user's to type.
    const resource = ID_KINDS[pendingValue.names[0]!.replace(/^--/, '')];
    return resource && pendingValue.value?.includes('id') ? { kind: 'ids', resource, prefix: current } : pick([]);
  }
  if (current.startsWith('-')) return pick(path.flatMap((step) => step.options.flatMap((option) => option.names)));
  if (node.subcommands.length > 0 && positional === 0) return pick(node.subcommands.map((sub) => sub.name));
  // `till products show <id>`: the first argument of a command under products or orders, when it is an id.
  const resource = ID_KINDS[path[1]?.name ?? ''];
  if (resource && path.length === 3 && positional === 0 && /\bid\b/.test(node.args[0] ?? ''))
    return { kind: 'ids', resource, prefix: current };
  return pick([]);
}
