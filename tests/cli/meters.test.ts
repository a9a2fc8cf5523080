import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, Sandbox } from './till.js';

let daemon: TestDaemon;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  daemon = await startTestDaemon({
    organizations: { allowCreate: true, limit: null, teams: true, allowRemovingAllTeams: false },
  });
});
afterAll(async () => {
  await daemon?.stop();
  for (const created of sandboxes) created.cleanup();
});

describe('till events and meters', () => {
  it('ingests a JSON Lines file in batches, lists events, creates a meter and draws its quantities', async () => {
    const cli = new Sandbox({ TILL_URL: daemon.url });
    sandboxes.push(cli);
    const signup = await cli.run(['signup', '--name', 'Ada', '--email', uniqueEmail('meters'), '--password-stdin'], {
      input: `${PASSWORD}\n`,
    });
    expect(signup.exitCode, signup.stderr).toBe(0);
    const org = await cli.run([
      'org',
      'create',
      '--name',
      'Shop',
      '--slug',
      `shop-${Math.random().toString(36).slice(2, 8)}`,
    ]);
    expect(org.exitCode, org.stderr).toBe(0);
    const customer = await cli.run([
      'customers',
      'create',
      '--email',
      uniqueEmail('buyer'),
      '--external-id',
      'u1',
      '--json',
    ]);
    expect(customer.exitCode, customer.stderr).toBe(0);

    const meter = await cli.run([
      'meters',
      'create',
      '--name',
      'Tokens',
      '--event',
      'llm',
      '--aggregation',
      'sum:tokens',
      '--json',
    ]);
    expect(meter.exitCode, meter.stderr).toBe(0);
    const lines = Array.from({ length: 2500 }, (_, i) =>
      JSON.stringify({
        name: 'llm',
        external_customer_id: 'u1',
        external_id: `e${i % 2000}`,
        timestamp: new Date(Date.parse('2026-11-20T00:00:00Z') + i * 30_000).toISOString(),
        metadata: { tokens: 2 },
      }),
    );
    const file = join(cli.root, 'usage.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const ingested = await cli.run(['events', 'ingest', '--file', file, '--json']);
    expect(ingested.exitCode, ingested.stderr).toBe(0);
    expect(ingested.json).toEqual({ inserted: 2000, duplicates: 500 });

    const fromStdin = await cli.run(['events', 'ingest', '--file', '-'], {
      input: `${JSON.stringify({ name: 'llm', external_customer_id: 'u1' })}\n{"name": "llm"}\n`,
    });
    expect(fromStdin.exitCode).toBe(1);
    expect(fromStdin.stderr).toContain('line 2');

    const structured = {
      name: 'llm',
      external_customer_id: 'u1',
      metadata: {
        _llm: { vendor: 'openai', model: 'gpt-5', input_tokens: 10, output_tokens: 5, total_tokens: 15 },
        _cost: { amount: '0.25', currency: 'usd' },
      },
    };
    const llmCall = await cli.run(['events', 'ingest', '--file', '-'], { input: `${JSON.stringify(structured)}\n` });
    expect(llmCall.exitCode, llmCall.stderr).toBe(0);
    const newest = await cli.run(['events', 'list', '--limit', '1']);
    expect(newest.stdout).toContain('_llm={openai/gpt-5, 15 tokens} _cost={0.25 cents usd}');

    const listed = await cli.run(['events', 'list', '--limit', '3', '--json']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.json).toHaveLength(3);

    const meters = await cli.run(['customers', 'meters', customer.json.id, '--json']);
    expect(meters.json[0]).toMatchObject({ consumed_units: 4000, meter_id: meter.json.id });

    const drawn = await cli.run([
      'meters',
      'quantities',
      meter.json.id,
      '--interval',
      'day',
      '--start',
      '2026-11-19',
      '--end',
      '2026-11-21T12:00:00Z',
    ]);
    expect(drawn.exitCode, drawn.stderr).toBe(0);
    expect(drawn.stdout).toContain('total: 4000');
    expect(drawn.stdout).toMatch(/┤/);
    // Days in Tokyo: the first period starts at the zone's midnight, which the label shows with its offset.
    const tokyo = await cli.run([
      'meters',
      'quantities',
      meter.json.id,
      '--start',
      '2026-11-19',
      '--end',
      '2026-11-21T12:00:00Z',
      '--timezone',
      'Asia/Tokyo',
    ]);
    expect(tokyo.exitCode, tokyo.stderr).toBe(0);
    expect(tokyo.stdout).toContain('2026-11-19T00:00:00.000+09:00');
    expect(tokyo.stdout).toContain('total: 4000');
    const unknownZone = await cli.run(['meters', 'quantities', meter.json.id, '--timezone', 'Mars/Base']);
    expect(unknownZone.exitCode).not.toBe(0);
    expect(unknownZone.stderr).toContain('timezone');
    const shown = await cli.run(['meters', 'show', meter.json.id]);
    expect(shown.stdout).toContain('sum(tokens)');
  });
});
