import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';
import { useSandboxes } from './till.js';

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});
const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));
const FIXTURE = fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url));

describe('till files', () => {
  it('uploads a multi-megabyte file in parts, lists it and deletes it', async () => {
    const merchant = await createMerchant(daemon);
    const cli = sandbox({ TILL_TOKEN: merchant.token });
    const bytes = randomBytes(19 * 1024 * 1024 + 321);
    const path = join(cli.root, 'Course Pack.zip');
    writeFileSync(path, bytes);

    const uploaded = await cli.run(['files', 'upload', path, '--file-version', '3', '--json']);
    expect(uploaded.exitCode, uploaded.stderr).toBe(0);
    expect(uploaded.json).toMatchObject({
      name: 'Course Pack.zip',
      mime_type: 'application/zip',
      size: bytes.length,
      service: 'downloadable',
      version: '3',
      is_uploaded: true,
      checksum_sha256_hex: createHash('sha256').update(bytes).digest('hex'),
    });
    // 8 MiB parts: three of them.
    expect(uploaded.json.checksum_etag).toMatch(/-3$/);
    // Not a terminal: no progress bar in the captured stderr.
    expect(uploaded.stderr).not.toContain('[#');
    const id = uploaded.json.id as string;
    const download = await fetch(`${daemon.url}/v1/files/${id}/download`, {
      headers: { authorization: `Bearer ${merchant.token}` },
    });
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);

    const image = join(cli.root, 'cover.png');
    writeFileSync(image, randomBytes(2000));
    const plain = await cli.run(['files', 'upload', image, '--service', 'product_media', '--name', 'Cover']);
    expect(plain.exitCode, plain.stderr).toBe(0);
    const imageId = plain.stdout.trim();
    expect(plain.stderr).toContain('uploaded Cover');

    const listed = await cli.run(['files', 'list', '--json']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.json.map((file: { id: string }) => file.id).sort()).toEqual([id, imageId].sort());
    expect(listed.json.find((file: { id: string }) => file.id === imageId)).toMatchObject({
      service: 'product_media',
      mime_type: 'image/png',
      public_url: expect.any(String),
    });
    const rows = (await cli.run(['files', 'list'])).stdout.trim().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows.find((row) => row.startsWith(id))?.split('\t')).toEqual([
      id,
      'Course Pack.zip',
      'downloadable',
      '19.0 MB',
      '3',
      expect.any(String),
    ]);

    const deleted = await cli.run(['files', 'delete', id, '--json']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(deleted.json).toEqual({ id, deleted: true });
    expect((await cli.run(['files', 'list', '--json'])).json.map((file: { id: string }) => file.id)).toEqual([imageId]);
    const again = await cli.run(['files', 'delete', id]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(`file ${id} not found (ResourceNotFound)`);
  });

  it('reports refusals, usage errors and a missing sign-in with the right exit codes', async () => {
    const merchant = await createMerchant(daemon);
    const cli = sandbox({ TILL_TOKEN: merchant.token });
    const pdf = join(cli.root, 'notes.pdf');
    writeFileSync(pdf, 'not really a pdf');
    const refused = await cli.run(['files', 'upload', pdf, '--service', 'product_media']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('mime_type');
    expect((await cli.run(['files', 'upload', join(cli.root, 'missing.bin')])).exitCode).toBe(2);
    expect((await cli.run(['files', 'upload', pdf, '--service', 'poster'])).exitCode).toBe(2);
    const empty = join(cli.root, 'empty.txt');
    writeFileSync(empty, '');
    expect((await cli.run(['files', 'upload', empty])).exitCode).toBe(2);

    const anonymous = sandbox();
    const notSignedIn = await anonymous.run(['files', 'list']);
    expect(notSignedIn.exitCode).toBe(4);
    const badToken = await sandbox({ TILL_TOKEN: 'till_oat_unknown' }).run(['files', 'list']);
    expect(badToken.exitCode).toBe(4);
  });

  it('loads no Ink, React, Koa or Knex for its help', async () => {
    const result = await sandbox().run(['files', 'upload', '--help'], { nodeArgs: ['--import', FIXTURE] });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('--service <service>');
  });
});
