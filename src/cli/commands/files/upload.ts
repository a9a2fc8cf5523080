import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { Transform } from 'node:stream';
import { request } from 'undici';
import type { FileReadWire, FileUploadWire } from '../../../core/files/schemas.js';
import type { Invocation } from '../../action.js';
import { actingOrg, signedIn } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { printJson, printLine } from '../../output.js';
import { describeV1Error, v1 } from './api.js';

const PART_SIZE = 8 * 1024 * 1024;

const MIME_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.epub': 'application/epub+zip',
  '.mp3': 'audio/mpeg',
  '.mp4': 'video/mp4',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
};

interface Options {
  json?: boolean;
  service: 'downloadable' | 'product_media' | 'organization_avatar';
  name?: string;
  mimeType?: string;
  fileVersion?: string;
  org?: string;
}

/** Reads the file once: the SHA-256 of each part and of the whole, as the daemon checks both. */
async function checksums(path: string, size: number) {
  const whole = createHash('sha256');
  const parts: Array<{ number: number; chunk_start: number; chunk_end: number; checksum_sha256_base64: string }> = [];
  let part = createHash('sha256');
  let inPart = 0;
  let offset = 0;
  const finishPart = () => {
    parts.push({
      number: parts.length + 1,
      chunk_start: offset - inPart,
      chunk_end: offset - 1,
      checksum_sha256_base64: part.digest('base64'),
    });
    part = createHash('sha256');
    inPart = 0;
  };
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
    let data = chunk as Buffer;
    whole.update(data);
    while (data.length > 0) {
      const take = Math.min(PART_SIZE - inPart, data.length);
      part.update(data.subarray(0, take));
      inPart += take;
      offset += take;
      data = data.subarray(take);
      if (inPart === PART_SIZE) finishPart();
    }
  }
  if (inPart > 0) finishPart();
  if (offset !== size) throw new CliError(`${path} changed while it was being read; try again`);
  return { sha256: whole.digest('base64'), parts };
}

/** A one-line bar redrawn in place on a terminal; nothing at all otherwise, so logs stay clean. */
function progressBar(label: string, total: number) {
  const enabled = Boolean(process.stderr.isTTY);
  let done = 0;
  const draw = () => {
    if (!enabled) return;
    const width = 30;
    const filled = Math.round((done / total) * width);
    const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    process.stderr.write(
      `\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor((done / total) * 100)}% ${mib(done)}/${mib(total)} MiB`,
    );
  };
  return {
    add(bytes: number) {
      done += bytes;
      draw();
    },
    end() {
      if (enabled) process.stderr.write('\n');
    },
  };
}

async function putPart(
  url: string,
  path: string,
  part: { chunk_start: number; chunk_end: number; headers: Record<string, string> },
  onBytes: (n: number) => void,
) {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onBytes(chunk.length);
      done(null, chunk);
    },
  });
  const body = createReadStream(path, { start: part.chunk_start, end: part.chunk_end }).pipe(counter);
  const length = String(part.chunk_end - part.chunk_start + 1);
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, {
      method: 'PUT',
      body,
      headers: { ...part.headers, 'content-length': length, 'content-type': 'application/octet-stream' },
    });
  } catch (error) {
    throw new CliError(`uploading a part failed: ${(error as Error).message || String(error)}`);
  }
  const text = await response.body.text();
  if (response.statusCode !== 200) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    throw new CliError(
      `the daemon refused a part (HTTP ${response.statusCode}): ${describeV1Error(response.statusCode, json).message}`,
    );
  }
  const etag = response.headers.etag;
  if (typeof etag !== 'string')
    throw new CliError('the daemon answered a part without an ETag; is this a Till daemon?');
  return etag;
}

export async function run({ args, opts, globals }: Invocation<Options>): Promise<void> {
  const path = String(args[0]);
  const target = signedIn(globals);
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UsageError(`${path} is not a regular file`);
    size = info.size;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (size === 0) throw new UsageError(`${path} is empty; there is nothing to upload`);
  const name = opts.name ?? basename(path);
  const mimeType = opts.mimeType ?? MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';

  const org = await actingOrg(target, opts);
  const { sha256, parts } = await checksums(path, size);
  const upload = await v1<FileUploadWire>(target, 'POST', '/v1/files/', {
    ...(org ? { organization_id: org.id } : {}),
    service: opts.service,
    name,
    mime_type: mimeType,
    size,
    checksum_sha256_base64: sha256,
    ...(opts.fileVersion ? { version: opts.fileVersion } : {}),
    upload: { parts },
  });
  const bar = progressBar(name, size);
  const completed = [];
  try {
    for (const part of upload.upload.parts) {
      const etag = await putPart(part.url, path, part, (n) => bar.add(n));
      completed.push({ number: part.number, checksum_etag: etag, checksum_sha256_base64: part.checksum_sha256_base64 });
    }
  } finally {
    bar.end();
  }
  const file = await v1<FileReadWire>(target, 'POST', `/v1/files/${upload.id}/uploaded`, {
    id: upload.upload.id,
    path: upload.upload.path,
    parts: completed,
  });
  if (opts.json) printJson(file);
  else {
    printLine(file.id);
    process.stderr.write(`uploaded ${file.name} (${file.size_readable}, ${file.service})\n`);
  }
}
