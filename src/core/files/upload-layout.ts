import { createHash } from 'node:crypto';
import { fieldError, validationError } from '../polar-api/errors.js';
import type { FieldIssue } from '../polar-api/errors.js';
import type { FileCreateInput } from './schemas.js';
import { MAX_PART_BYTES } from './schemas.js';

/**
 * A multipart upload's layout and checksums, as S3 has them: parts numbered from 1, each starting where the one before
 * ended, together covering the file's size; an object's ETag made from its parts' MD5 digests.
 */

/** S3's ETag of a multipart object: MD5 of the parts' MD5 digests, then the number of parts. */
export function multipartEtag(partMd5s: string[]): string {
  const md5 = createHash('md5');
  for (const hex of partMd5s) md5.update(Buffer.from(hex, 'hex'));
  return `${md5.digest('hex')}-${partMd5s.length}`;
}

/** ETags travel quoted (`"abc…"`); completions may send them either way. */
export function bareEtag(value: string): string {
  return value
    .trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1');
}

/** Refuses a file over the size limit, or parts that do not tile it (a 422 naming each bad part, at most 20). */
export function checkLayout(input: FileCreateInput, maxBytes: number): void {
  if (input.size > maxBytes)
    throw fieldError(
      ['body', 'size'],
      `Input should be less than or equal to ${maxBytes} (TILL_FILES_MAX_BYTES)`,
      'less_than_equal',
    );
  const issues: FieldIssue[] = [];
  const order = input.upload.parts
    .map((part, index) => ({ part, index }))
    .sort((a, b) => a.part.number - b.part.number);
  let next = 0;
  order.forEach(({ part, index }, position) => {
    const loc = ['body', 'upload', 'parts', index];
    if (part.number !== position + 1)
      issues.push({
        loc: [...loc, 'number'],
        msg: 'Parts must be numbered 1, 2, 3… without gaps or repeats',
        type: 'value_error',
      });
    else if (part.chunk_start !== next)
      issues.push({
        loc: [...loc, 'chunk_start'],
        msg: `Part ${part.number} should start at byte ${next}`,
        type: 'value_error',
      });
    else if (part.chunk_end < part.chunk_start)
      issues.push({ loc: [...loc, 'chunk_end'], msg: 'chunk_end cannot be before chunk_start', type: 'value_error' });
    else if (part.chunk_end - part.chunk_start + 1 > MAX_PART_BYTES) {
      issues.push({
        loc: [...loc, 'chunk_end'],
        msg: `A part can hold at most ${MAX_PART_BYTES} bytes`,
        type: 'value_error',
      });
    }
    next = part.chunk_end + 1;
  });
  if (issues.length === 0 && next !== input.size) {
    issues.push({
      loc: ['body', 'upload', 'parts'],
      msg: `The parts cover ${next} bytes but size is ${input.size}`,
      type: 'value_error',
    });
  }
  if (issues.length > 0) throw validationError(issues.slice(0, 20));
}
