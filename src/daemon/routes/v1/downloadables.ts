import type { CoreContext } from '../../../core/context.js';
import {
  downloadableFileParams,
  downloadableFileQuery,
  downloadableListQuery,
  downloadableListSchema,
} from '../../../core/downloadables/schemas.js';
import { authenticateCustomer } from '../../auth/customer-auth.js';
import { sendFile } from './files.js';
import type { V1Api } from './operation.js';

/** Downloadables in the customer portal: the list (Polar's) and the signed link's bytes (Till's download URL). */
export function registerDownloadablesRoutes(api: V1Api, core: CoreContext): void {
  const service = core.downloadables;
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/downloadables/',
      operationId: 'customer_portal:downloadables:list',
      tag: 'customer_portal',
      summary: "List the signed-in customer's downloadables, with signed download links",
      query: downloadableListQuery,
      response: downloadableListSchema,
    },
    async ({ ctx, query }) => service.listForCustomer(await authenticateCustomer(core, ctx), query),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/downloadables/:id/file',
      operationId: 'customer_portal:downloadables:file',
      tag: 'customer_portal',
      summary: "A downloadable's bytes, behind the signed link the list hands out (Till)",
      params: downloadableFileParams,
      query: downloadableFileQuery,
      responseDescription: 'The file, as an attachment with its MIME type.',
    },
    async ({ ctx, params, query }) => {
      sendFile(ctx, await service.open(params.id, query.token), 'attachment');
      // The link is a credential: neither it nor the bytes it opened stay in shared caches.
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('Referrer-Policy', 'no-referrer');
      return undefined;
    },
  );
}
