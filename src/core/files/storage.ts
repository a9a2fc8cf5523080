import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * The bytes of uploaded files, under TILL_FILES_DIR:
 *   uploads/<file id>/<part number>-<md5>.part   parts as they arrive (named by content, so a part sent twice at
 *                                                once can never pair one request's ETag with the other's bytes)
 *   objects/<organization id>/<file id>          completed files
 * Every path is made of ids Till generated and checks here; nothing a caller typed becomes part of a path.
 */

const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ORGANIZATION_ID = /^[A-Za-z0-9]{1,64}$/;
const MD5_HEX = /^[0-9a-f]{32}$/;

export class PartSizeError extends Error {
  constructor(readonly received: number) {
    super(`received ${received} bytes`);
    this.name = 'PartSizeError';
  }
}

export interface WrittenPart {
  size: number;
  sha256Base64: string;
  md5Hex: string;
}

export interface AssembledFile {
  size: number;
  sha256: Buffer;
  /** A temporary file beside the final location; `commit` renames it into place, `discard` removes it. */
  temporary: string;
}

function checkIds(fileId: string, organizationId?: string): void {
  if (!FILE_ID.test(fileId)) throw new Error('invalid file id for storage');
  if (organizationId !== undefined && !ORGANIZATION_ID.test(organizationId))
    throw new Error('invalid organization id for storage');
}

export function fileStorage(root: string) {
  const uploadsDir = (fileId: string) => {
    checkIds(fileId);
    return join(root, 'uploads', fileId);
  };
  const partFile = (fileId: string, number: number, md5Hex: string) => {
    if (!Number.isSafeInteger(number) || number < 1 || !MD5_HEX.test(md5Hex))
      throw new Error('invalid part for storage');
    return join(uploadsDir(fileId), `${number}-${md5Hex}.part`);
  };
  const objectFile = (organizationId: string, fileId: string) => {
    checkIds(fileId, organizationId);
    return join(root, 'objects', organizationId, fileId);
  };

  return {
    /**
     * Streams one part to disk, hashing as it goes. More bytes than `expectedSize` stop the copy at once (the
     * caller closes the connection), so a part never takes more disk or time than announced.
     */
    async writePart(fileId: string, number: number, source: Readable, expectedSize: number): Promise<WrittenPart> {
      const dir = uploadsDir(fileId);
      await mkdir(dir, { recursive: true });
      const temporary = join(dir, `${number}.${randomUUID()}.tmp`);
      const sha256 = createHash('sha256');
      const md5 = createHash('md5');
      let size = 0;
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          if (size > expectedSize) {
            done(new PartSizeError(size));
            return;
          }
          sha256.update(chunk);
          md5.update(chunk);
          done(null, chunk);
        },
      });
      try {
        await pipeline(source, meter, createWriteStream(temporary, { flags: 'wx' }));
        if (size !== expectedSize) throw new PartSizeError(size);
        const md5Hex = md5.digest('hex');
        await rename(temporary, partFile(fileId, number, md5Hex));
        return { size, sha256Base64: sha256.digest('base64'), md5Hex };
      } catch (error) {
        await unlink(temporary).catch(() => undefined);
        throw error;
      }
    },

    /** Concatenates the parts, in order, into a temporary file beside the final one, hashing the whole. */
    async assemble(
      organizationId: string,
      fileId: string,
      parts: Array<{ number: number; etag: string }>,
    ): Promise<AssembledFile> {
      const target = objectFile(organizationId, fileId);
      await mkdir(join(root, 'objects', organizationId), { recursive: true });
      const temporary = `${target}.${randomUUID()}.tmp`;
      const sha256 = createHash('sha256');
      let size = 0;
      const files = parts.map((part) => partFile(fileId, part.number, part.etag));
      try {
        await pipeline(
          async function* () {
            for (const file of files) {
              for await (const chunk of createReadStream(file)) {
                sha256.update(chunk as Buffer);
                size += (chunk as Buffer).length;
                yield chunk as Buffer;
              }
            }
          },
          createWriteStream(temporary, { flags: 'wx' }),
        );
      } catch (error) {
        await unlink(temporary).catch(() => undefined);
        throw error;
      }
      return { size, sha256: sha256.digest(), temporary };
    },

    /** Atomic: readers see either no file or the whole file. */
    async commit(organizationId: string, fileId: string, assembled: AssembledFile): Promise<void> {
      await rename(assembled.temporary, objectFile(organizationId, fileId));
    },

    async discard(assembled: AssembledFile): Promise<void> {
      await unlink(assembled.temporary).catch(() => undefined);
    },

    /** The completed file's bytes as a stream, or null when they are missing from the disk. */
    async open(organizationId: string, fileId: string): Promise<{ stream: ReadStream; size: number } | null> {
      let handle;
      try {
        handle = await open(objectFile(organizationId, fileId), 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
      try {
        const { size } = await handle.stat();
        return { stream: handle.createReadStream(), size };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },

    async removeUploads(fileId: string): Promise<void> {
      await rm(uploadsDir(fileId), { recursive: true, force: true });
    },

    async removeObject(organizationId: string, fileId: string): Promise<void> {
      await rm(objectFile(organizationId, fileId), { force: true });
    },
  };
}

export type FileStorage = ReturnType<typeof fileStorage>;
