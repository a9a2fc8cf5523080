import { z } from 'zod';
import {
  checkoutLinkCreateSchema,
  checkoutLinkListSchema,
  checkoutLinkSchema,
  checkoutLinkUpdateSchema,
} from '../../../core/checkout-links/schemas.js';
import { resolveForCheckout } from '../../../core/checkout-links/resolve.js';
import type { CoreContext } from '../../../core/context.js';
import { resourceNotFound } from '../../../core/polar-api/errors.js';
import { pageQuery, repeated, sortingQuery } from '../../../core/kernel/pagination.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import { deleteById } from './delete-by-id.js';
import type { V1Api } from './operation.js';

const tag = 'checkout_links';
const listQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  product_id: repeated(z.uuid()).optional(),
  ...pageQuery,
  // Polar lists checkout links oldest first unless told otherwise.
  sorting: sortingQuery(['created_at', 'label', 'success_url', 'allow_discount_codes'], ['created_at']),
});

export function registerCheckoutLinksRoutes(api: V1Api, core: CoreContext): void {
  const service = core.checkoutLinks;
  const path = '/v1/checkout-links/';
  api.op(
    {
      method: 'get',
      path,
      operationId: 'checkout-links:list',
      tag,
      summary: 'List checkout links',
      scopes: readScopes(tag),
      query: listQuery,
      response: checkoutLinkListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path,
      operationId: 'checkout-links:create',
      tag,
      summary: 'Create a checkout link',
      scopes: writeScopes(tag),
      body: checkoutLinkCreateSchema,
      response: checkoutLinkSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
  api.op(
    {
      method: 'get',
      path: `${path}:id`,
      operationId: 'checkout-links:get',
      tag,
      summary: 'Get a checkout link',
      scopes: readScopes(tag),
      params: idParams,
      response: checkoutLinkSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: `${path}:id`,
      operationId: 'checkout-links:update',
      tag,
      summary: 'Update a checkout link',
      scopes: writeScopes(tag),
      params: idParams,
      body: checkoutLinkUpdateSchema,
      response: checkoutLinkSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
  deleteById(
    api,
    { path: `${path}:id`, operationId: 'checkout-links:delete', tag, summary: 'Delete a checkout link' },
    (actor, id) => service.delete(actor, id),
  );
  api.publicOp(
    {
      method: 'get',
      path: `${path}:client_secret/redirect`,
      operationId: 'checkout-links:redirect',
      tag,
      summary: 'Open a checkout link (public): starts a checkout and redirects to it',
      params: z.object({ client_secret: z.string().min(1).max(128) }),
      // Prefill, as Polar's links take it; a value that does not validate is ignored rather than failing the link.
      query: z.object({
        customer_email: z.string().max(320).optional(),
        customer_name: z.string().max(256).optional(),
        discount_code: z.string().max(256).optional(),
      }),
      responseDescription:
        'A redirect to the new checkout; 404 for unknown or deleted links and links whose products are all archived.',
    },
    async ({ ctx, params, query }) => {
      const resolved = await resolveForCheckout(core.db, params.client_secret, core.readCache);
      if (!resolved) throw resourceNotFound();
      const checkout = await core.checkouts.createFromLink(resolved, query);
      // Every opening starts a new checkout, so the redirect must never be cached or replayed from a cache.
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 303;
      ctx.redirect(checkout.url);
      return undefined;
    },
  );
}
