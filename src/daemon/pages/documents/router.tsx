import Router from '@koa/router';
import type { Context } from 'koa';
import { renderToBuffer } from '@react-pdf/renderer';
import type { CoreContext } from '../../../core/context.js';
import { isDomainError } from '../../../core/kernel/errors.js';
import type { DocumentKind } from '../../../core/order-documents/signer.js';
import { OrderPdf } from './OrderPdf.js';

/**
 * `/documents/orders/:id/{invoice,receipt}.pdf?token=…`: the links GET /v1/orders/{id}/invoice and /receipt hand
 * out. The signed token is the only credential, so the answer is private to whoever holds the link and never cached
 * by a shared cache.
 */
export function documentsRouter(core: CoreContext): Router {
  const router = new Router();
  for (const kind of ['invoice', 'receipt'] as const) {
    router.get(`/documents/orders/:id/${kind}.pdf`, async (ctx) => {
      await send(ctx, core, kind);
    });
  }
  return router;
}

async function send(ctx: Context, core: CoreContext, kind: DocumentKind): Promise<void> {
  const token = typeof ctx.query.token === 'string' ? ctx.query.token : undefined;
  try {
    const document = await core.orderDocuments.document(kind, ctx.params.id!, token);
    const pdf = await renderToBuffer(<OrderPdf document={document} />);
    ctx.status = 200;
    ctx.type = 'application/pdf';
    ctx.set('Content-Disposition', `inline; filename="${kind}-${document.number.replace(/[^A-Za-z0-9-]/g, '')}.pdf"`);
    ctx.set('Cache-Control', 'private, no-store');
    ctx.body = pdf;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    ctx.status = error.status;
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = error.status === 410 ? 'This link has expired; ask for a new one.' : 'Not found';
  }
}
