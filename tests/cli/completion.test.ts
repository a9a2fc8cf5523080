import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { paidOrder } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';
import { TILL_BIN, freePort, useSandboxes } from './till.js';

// `till completion bash|zsh|fish` and the hidden `till __complete` its scripts call (issue 21, beyond fixing).
const daemon = useTestDaemon();
const sandbox = useSandboxes(() => ({ TILL_URL: daemon().url }));

// Completion runs at every Tab: it loads no Knex, Koa, React or Ink (the same guard as tests/cli/help.test.ts).
const FORBID_HEAVY = ['--import', fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url))];

const lines = (text: string) => text.split('\n').filter(Boolean);

describe('till completion', () => {
  it('prints a script per shell, with the commands from the command tree and not the hidden one', async () => {
    const cli = sandbox();
    const bash = await cli.run(['completion', 'bash'], { nodeArgs: FORBID_HEAVY });
    expect(bash.exitCode, bash.stderr).toBe(0);
    expect(bash.stdout).toContain('complete -o default -F _till till');
    for (const command of ['products', 'orders', 'webhooks', 'checkouts', 'completion'])
      expect(bash.stdout).toMatch(new RegExp(`_till_commands='[^']*\\b${command}\\b`));
    expect(bash.stdout).not.toContain('__complete products');
    expect(/_till_commands='([^']*)'/.exec(bash.stdout)?.[1]).not.toContain('__complete');
    const zsh = await cli.run(['completion', 'zsh']);
    expect(zsh.stdout).toContain('compdef _till till');
    const fish = await cli.run(['completion', 'fish']);
    expect(fish.stdout).toMatch(/complete -c till -n __fish_use_subcommand -a products -d '[^']+'/);
    const other = await cli.run(['completion', 'tcsh']);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('invalid shell: must be one of bash, zsh, fish (got "tcsh")');
  });

  it('completes subcommands and options from the tree, without the daemon', async () => {
    const cli = sandbox({ TILL_URL: `http://127.0.0.1:${await freePort()}` });
    const sub = await cli.run(['__complete', 'products', 'sh'], { nodeArgs: FORBID_HEAVY });
    expect(sub.stderr).toBe('');
    expect(lines(sub.stdout)).toEqual(['show']);
    const options = lines((await cli.run(['__complete', '--', 'webhooks', 'deliveries', '--l'])).stdout);
    expect(options).toEqual(['--limit']);
    // An option's value is skipped: after `--limit 5` come the options again.
    const after = lines((await cli.run(['__complete', '--', 'products', 'list', '--limit', '5', '--a'])).stdout);
    expect(after).toEqual(expect.arrayContaining(['--all', '--all-orgs']));
    // No daemon there: ids are simply not offered, and nothing is said.
    const silent = await cli.run(['__complete', 'products', 'show', '']);
    expect(silent).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
  });

  it("completes the active organization's product and order ids from the daemon", async () => {
    const merchant = await createMerchant(daemon());
    const other = await createMerchant(daemon());
    const products = [await createProduct(merchant, { name: 'One' }), await createProduct(merchant, { name: 'Two' })];
    const elsewhere = await createProduct(other);
    const { order } = await paidOrder(daemon(), merchant);
    const cli = sandbox({ TILL_TOKEN: merchant.owner.token });

    const shown = await cli.run(['__complete', 'products', 'show', ''], { nodeArgs: FORBID_HEAVY });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(lines(shown.stdout)).toEqual(expect.arrayContaining(products.map((product) => product.id)));
    expect(shown.stdout).not.toContain(elsewhere.id);
    const prefix = products[0]!.id.slice(0, 8);
    const narrowed = lines((await cli.run(['__complete', 'products', 'update', prefix])).stdout);
    expect(narrowed).toContain(products[0]!.id);
    expect(narrowed.every((id) => id.startsWith(prefix))).toBe(true);
    expect(lines((await cli.run(['__complete', 'orders', 'show', ''])).stdout)).toContain(order.id);
    const byOption = lines((await cli.run(['__complete', '--', 'orders', 'list', '--product', ''])).stdout);
    expect(byOption).toEqual(expect.arrayContaining(products.map((product) => product.id)));
  });

  it('works when bash sources the script: the function is registered and answers', async () => {
    const cli = sandbox();
    // `till` on the PATH is the built CLI, as an installed one would be.
    const script = [
      `till() { ${JSON.stringify(process.execPath)} ${JSON.stringify(TILL_BIN)} "$@"; }`,
      'source <(till completion bash)',
      'complete -p till',
      'COMP_WORDS=(till prod); COMP_CWORD=1; _till; echo "first: ${COMPREPLY[*]}"',
      'COMP_WORDS=(till products li); COMP_CWORD=2; _till; echo "second: ${COMPREPLY[*]}"',
    ].join('\n');
    const result = await execa('bash', ['-c', script], { reject: false, env: cli.environment(), extendEnv: false });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(result.stdout).toContain('complete -o default -F _till till');
    expect(result.stdout).toContain('first: products');
    expect(result.stdout).toContain('second: list');
  });
});
