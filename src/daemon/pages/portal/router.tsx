import Router from '@koa/router';
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import type { CoreContext } from '../../../core/context.js';
import { DomainError, isDomainError } from '../../../core/kernel/errors.js';
import { nulPath } from '../../../core/kernel/text.js';
import type { Logger } from '../../logger.js';
import { readBody } from '../../middleware/body.js';
import { MessagePage, renderDocument } from '../checkout/layout.js';
import { newNonce, postOriginAllowed, setPageHeaders } from '../checkout/security.js';
import { renderHydratedPage } from '../shared/document.js';
import { NOTICES, refusalText, runAction, type NoticeCode, type PortalForm } from './actions.js';
import { PortalPage } from './PortalPage.js';
import type { PortalAccess } from './session.js';
import { clearPortalCookie, cookieToken, portalPath, resolveAccess, setPortalCookie, TOKEN_PARAM } from './session.js';
import { portalProps } from './view.js';

/**
 * The hosted customer portal at `/portal/<organization slug>`, where `customer_portal_url` sends a customer. It shows
 * only the signed-in customer's own purchases; without a session, with an expired one or with another
 * organization's, it says what happened and what to do, and shows nothing else.
 */

const MAX_FORM_BYTES = 16 * 1024;
// Never the real URL in logs: the first visit carries the session token in its query.
const LOGGED_PATH = '/portal/:slug';

type Organization = { id: string; name: string; slug: string };

interface Page {
  ctx: Context;
  nonce: string;
}

function message(page: Page, status: number, heading: string, text: string): void {
  page.ctx.status = status;
  page.ctx.type = 'text/html; charset=utf-8';
  page.ctx.body = renderDocument(
    <MessagePage nonce={page.nonce} title={heading} heading={heading}>
      <p>{text}</p>
    </MessagePage>,
  );
}

/** The page for a visitor the portal does not let in: no session, an expired one, or one that is not for here. */
function refused(page: Page, organization: Organization, access: Exclude<PortalAccess, { kind: 'ok' }>): void {
  const from = organization.name;
  if (access.kind === 'expired')
    return message(
      page,
      401,
      'Your session has expired',
      `For your security, a link to the customer portal works for one hour. Go back to ${from} and open the customer portal again to get a new link.`,
    );
  if (access.kind === 'invalid')
    return message(
      page,
      401,
      'This link is not valid',
      `This link does not open ${from}'s customer portal. Go back to ${from} and open the customer portal from there.`,
    );
  message(
    page,
    401,
    'Sign in from ' + from,
    `The customer portal opens from a personal link. Go to ${from}'s website or the e-mail they sent you, and open the customer portal from there.`,
  );
}

export function portalPagesRouter(core: CoreContext, logger: Logger): Router {
  const router = new Router();
  const ownOrigin = new URL(core.config.baseUrl).origin;

  /** Finds the portal's organization and its signed-in customer, then runs the handler; errors become pages. */
  const handle =
    (run: (page: Page, organization: Organization, access: Extract<PortalAccess, { kind: 'ok' }>) => Promise<void>) =>
    async (ctx: Context) => {
      const page: Page = { ctx, nonce: newNonce() };
      setPageHeaders(ctx, { nonce: page.nonce, ownOrigin });
      try {
        const organization = nulPath(ctx.params) ? null : await core.hostedPortal.organizationBySlug(ctx.params.slug!);
        if (!organization)
          return message(page, 404, 'Portal not found', 'There is no customer portal at this address.');
        const access = await resolveAccess(core, organization.id, cookieToken(ctx));
        if (access.kind !== 'ok') {
          if (access.kind !== 'none') clearPortalCookie(ctx, organization.slug);
          return refused(page, organization, access);
        }
        await run(page, organization, access);
      } catch (error) {
        const errorId = randomUUID();
        logger.error('unhandled error', {
          errorId,
          method: ctx.method,
          path: LOGGED_PATH,
          error: error instanceof Error ? error.stack : String(error),
        });
        message(page, 500, 'Something went wrong', `Try again; if it keeps failing, quote error id ${errorId}.`);
      }
    };

  const show = async (
    page: Page,
    organization: Organization,
    access: Extract<PortalAccess, { kind: 'ok' }>,
    flash: { status?: number; notice?: string | null; error?: string | null },
  ) => {
    const portalUrl = new URL(portalPath(organization.slug), core.config.baseUrl).toString();
    const props = await portalProps({ core, actor: access.actor, organization, token: access.token, portalUrl }, flash);
    page.ctx.status = flash.status ?? 200;
    page.ctx.type = 'text/html; charset=utf-8';
    page.ctx.body = renderHydratedPage({
      title: `${organization.name} · Customer portal`,
      nonce: page.nonce,
      bundle: 'portal',
      props,
      app: <PortalPage {...props} />,
    });
  };

  // The link a merchant hands out: trade its token for the portal's cookie, then show the clean URL.
  router.get('/portal/:slug', async (ctx, next) => {
    const token = ctx.query[TOKEN_PARAM];
    if (typeof token !== 'string') return next();
    const page: Page = { ctx, nonce: newNonce() };
    setPageHeaders(ctx, { nonce: page.nonce, ownOrigin });
    const organization = nulPath(ctx.params) ? null : await core.hostedPortal.organizationBySlug(ctx.params.slug!);
    if (!organization) return message(page, 404, 'Portal not found', 'There is no customer portal at this address.');
    const access = await resolveAccess(core, organization.id, token);
    if (access.kind !== 'ok') return refused(page, organization, access);
    setPortalCookie(ctx, core, organization.slug, token, access.actor.session.expiresAt);
    ctx.status = 303;
    ctx.set('Location', portalPath(organization.slug));
    ctx.body = '';
  });

  router.get(
    '/portal/:slug',
    handle(async (page, organization, access) => {
      const done = page.ctx.query.done;
      const notice = typeof done === 'string' && done in NOTICES ? NOTICES[done as NoticeCode] : null;
      await show(page, organization, access, { notice });
    }),
  );

  router.post(
    '/portal/:slug',
    handle(async (page, organization, access) => {
      const { ctx } = page;
      if (!postOriginAllowed(ctx, ownOrigin))
        return message(
          page,
          403,
          'This form was sent from another site',
          'For your safety it was not accepted. Open the customer portal again.',
        );
      if (!ctx.is('application/x-www-form-urlencoded'))
        return message(page, 415, 'The form could not be read', 'The portal forms are sent as HTML forms.');
      const base = portalPath(organization.slug);
      try {
        const form = ((await readBody(ctx, { maxBytes: MAX_FORM_BYTES, allowForm: true })) ?? {}) as PortalForm;
        if (nulPath(form)) throw new DomainError(422, 'ValidationError', 'The form cannot contain NUL characters.');
        const url = new URL(base, core.config.baseUrl).toString();
        const result = await runAction(core, access.actor, form, { base, url });
        ctx.status = 303;
        ctx.set('Location', 'location' in result ? result.location : `${base}?done=${result.notice}`);
        ctx.body = '';
      } catch (error) {
        if (!isDomainError(error) || error.status >= 500) throw error;
        await show(page, organization, access, { status: error.status, error: refusalText(error) });
      }
    }),
  );

  for (const kind of ['receipt', 'invoice'] as const) {
    router.get(
      `/portal/:slug/orders/:id/${kind}`,
      handle(async (page, organization, access) => {
        const orderId = page.ctx.params.id!;
        // PostgreSQL cannot even look up an id that is not a UUID; no order has one.
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(orderId))
          return message(page, 404, 'Order not found', 'There is no such order in your purchases.');
        try {
          const link = await core.orderDocuments.customer[kind](access.actor, orderId);
          page.ctx.status = 303;
          page.ctx.set('Location', link.url);
          page.ctx.body = '';
        } catch (error) {
          if (!isDomainError(error) || error.status >= 500) throw error;
          await show(page, organization, access, { status: error.status, error: refusalText(error) });
        }
      }),
    );
  }
  return router;
}
