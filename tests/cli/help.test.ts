import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Sandbox } from './till.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url));
const nodeArgs = ['--import', FIXTURE];
const cli = new Sandbox();
afterAll(() => cli.cleanup());

describe('fast start', () => {
  it.each([
    '--help',
    'daemon --help',
    'daemon run --help',
    'admin set-password --help',
    'sessions list --help',
    'api-keys create --help',
    'login --help',
    'accounts unlink --help',
  ])('till %s loads no Ink, React, Koa, Knex or daemon code', async (command) => {
    const result = await cli.run(command.split(' '), { nodeArgs });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Usage: till');
  });

  it('the guard does catch a command that loads them', async () => {
    const result = await cli.run(['migrate'], { nodeArgs, env: { TILL_DATABASE_URL: 'sqlite::memory:' } });
    expect(result.exitCode).toBe(1);
    // Modules of one import graph are fetched concurrently, so which forbidden one is caught first varies (knex or pg).
    expect(result.stderr).toMatch(/forbidden module loaded: (knex|pg)\b/);
  });
});
