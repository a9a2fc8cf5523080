import type { Context } from 'koa';
import { z } from 'zod';
import type { CoreContext } from '../../../core/context.js';
import type { FileRecord } from '../../../core/files/repository.js';
import {
  fileCreateSchema,
  fileListQuery,
  fileListSchema,
  filePatchSchema,
  fileReadSchema,
  fileUploadCompletedSchema,
  fileUploadSchema,
} from '../../../core/files/schemas.js';
import { resourceNotFound } from '../../../core/polar-api/errors.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import { deleteById } from './delete-by-id.js';
import type { V1Api } from './operation.js';

const tag = 'files';
const partParams = z.object({ id: z.string().min(1).max(64), number: z.coerce.number().int().min(1).max(10_000) });

/** RFC 6266: a plain ASCII name for old clients, the exact UTF-8 name for the others. */
function contentDisposition(kind: 'attachment' | 'inline', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

export function sendFile(
  ctx: Context,
  opened: { file: FileRecord; stream: NodeJS.ReadableStream; size: number },
  kind: 'attachment' | 'inline',
): void {
  ctx.type = opened.file.mimeType;
  ctx.length = opened.size;
  ctx.set('Content-Disposition', contentDisposition(kind, opened.file.name));
  // Served from the daemon's own origin, next to the session cookies: never sniffed, never run (an SVG's scripts).
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  // A published file may be embedded (a product's PDF in the merchant's page), as Polar's storage allows.
  ctx.remove('X-Frame-Options');
  if (opened.file.checksumEtag) ctx.set('ETag', `"${opened.file.checksumEtag}"`);
  ctx.status = 200;
  ctx.body = opened.stream;
}

export function registerFilesRoutes(api: V1Api, core: CoreContext): void {
  const service = core.files;
  api.op(
    {
      method: 'get',
      path: '/v1/files/',
      operationId: 'files:list',
      tag,
      summary: 'List files (completed uploads)',
      scopes: readScopes(tag),
      query: fileListQuery,
      response: fileListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/files/',
      operationId: 'files:create',
      tag,
      summary: 'Create a file: answers a presigned URL for each part, to PUT the bytes to',
      scopes: writeScopes(tag),
      body: fileCreateSchema,
      response: fileUploadSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/files/:id/uploaded',
      operationId: 'files:uploaded',
      tag,
      summary: 'Complete a file upload: joins and checks the parts',
      scopes: writeScopes(tag),
      params: idParams,
      body: fileUploadCompletedSchema,
      response: fileReadSchema,
    },
    ({ actor, params, body }) => service.complete(actor, params.id, body),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/files/:id',
      operationId: 'files:update',
      tag,
      summary: 'Update a file',
      scopes: writeScopes(tag),
      params: idParams,
      body: filePatchSchema,
      response: fileReadSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
  deleteById(
    api,
    {
      path: '/v1/files/:id',
      operationId: 'files:delete',
      tag,
      summary: 'Delete a file (refused while a product or benefit uses it)',
    },
    (actor, id) => service.delete(actor, id),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/files/:id/download',
      operationId: 'files:download',
      tag,
      summary: "Download a file's bytes (Till)",
      scopes: readScopes(tag),
      params: idParams,
      responseDescription: 'The file, as an attachment with its MIME type.',
    },
    async ({ ctx, actor, params }) => {
      sendFile(ctx, await service.download(actor, params.id), 'attachment');
      return undefined;
    },
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/files/:id/public',
      operationId: 'files:public',
      tag,
      summary: 'A product media or organization avatar, public as in Polar (Till; the public_url)',
      params: idParams,
      responseDescription: 'The image.',
    },
    async ({ ctx, params }) => {
      sendFile(ctx, await service.openPublic(params.id), 'inline');
      ctx.set('Cache-Control', 'public, max-age=3600');
      return undefined;
    },
  );

  // The presigned part URLs (S3's UploadPart). Registered on the router itself: V1Api reads JSON bodies, and this
  // route takes raw bytes, authenticated by the URL's signature instead of a bearer token.
  api.router.put('/v1/files/:id/parts/:number', async (ctx) => {
    const params = partParams.safeParse(ctx.params);
    if (!params.success) throw resourceNotFound();
    const declared = ctx.get('content-length');
    try {
      const { etag } = await service.uploadPart({
        fileId: params.data.id,
        number: params.data.number,
        token: typeof ctx.query.token === 'string' ? ctx.query.token : undefined,
        contentLength: declared ? Number(declared) : null,
        checksumHeader: ctx.get('x-amz-checksum-sha256') || null,
        body: ctx.req,
      });
      ctx.set('ETag', `"${etag}"`);
      ctx.set('Access-Control-Expose-Headers', 'ETag');
      ctx.status = 200;
      ctx.body = '';
    } catch (error) {
      // The rest of a refused upload is not waited for.
      if (!ctx.req.readableEnded) ctx.set('Connection', 'close');
      throw error;
    }
  });
}
