import Router from '@koa/router';
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import type { ReactNode } from 'react';
import type { CheckoutPublicWire } from '../../../core/checkouts/schemas.js';
import { checkoutUpdatePublicSchema } from '../../../core/checkouts/schemas.js';
import type { CoreContext } from '../../../core/context.js';
import type { FieldIssue } from '../../../core/polar-api/errors.js';
import { DomainError, isDomainError } from '../../../core/kernel/errors.js';
import { nulPath } from '../../../core/kernel/text.js';
import type { Logger } from '../../logger.js';
import { readBody } from '../../middleware/body.js';
import { renderHydratedPage } from '../shared/document.js';
import { CheckoutPage, type CheckoutPageProps } from './CheckoutPage.js';
import { ConfirmationPage } from './confirmation.js';
import { countryOptions } from './fields.js';
import type { FormValues } from './form.js';
import { payIssues, readForm, zodIssues } from './form.js';
import { MessagePage, renderDocument } from './layout.js';
import { formatMoney } from './money.js';
import { newNonce, postOriginAllowed, setPageHeaders } from './security.js';

/**
 * The hosted checkout: `checkout.url` (`/checkout/{client_secret}`) and its default success page. It is a plain HTML
 * form posting back to itself, so it works without JavaScript; the buyer's update and confirmation go through the
 * same core calls as `/v1/checkouts/client/...`, so the page can do nothing the public API does not allow.
 */

const MAX_FORM_BYTES = 64 * 1024;
// Never the real path in logs: it carries the client secret.
const LOGGED_PATH = '/checkout/:client_secret';

interface Page {
  ctx: Context;
  nonce: string;
  ownOrigin: string;
}

function send(page: Page, status: number, element: ReactNode): void {
  page.ctx.status = status;
  page.ctx.type = 'text/html; charset=utf-8';
  page.ctx.body = renderDocument(element);
}

function message(page: Page, status: number, heading: string, text: string): void {
  send(
    page,
    status,
    <MessagePage nonce={page.nonce} title={heading} heading={heading}>
      <p>{text}</p>
    </MessagePage>,
  );
}

/** A checkout that can no longer be paid: expired (410) or already confirmed, paid or failed (403). */
function closed(page: Page, checkout: CheckoutPublicWire): void {
  if (checkout.status === 'expired') {
    message(
      page,
      410,
      'This checkout has expired',
      `Checkouts are open for a limited time. Go back to ${checkout.organization.name} to start a new one.`,
    );
  } else if (checkout.status === 'succeeded') {
    message(
      page,
      403,
      'This checkout is already paid',
      `Your purchase from ${checkout.organization.name} is complete; nothing more is needed.`,
    );
  } else if (checkout.status === 'confirmed') {
    message(
      page,
      403,
      'This checkout is being processed',
      'The payment is in progress. Refresh in a moment to see the result.',
    );
  } else {
    message(
      page,
      403,
      'This checkout is closed',
      `It can no longer be paid. Go back to ${checkout.organization.name} to start a new one.`,
    );
  }
}

function withoutCard(values: FormValues): FormValues {
  const { card_number: _card, ...rest } = values;
  return rest;
}

function successLocation(checkout: CheckoutPublicWire): string {
  return checkout.success_url.replaceAll('{CHECKOUT_ID}', checkout.id).replaceAll('%7BCHECKOUT_ID%7D', checkout.id);
}

export function checkoutPagesRouter(core: CoreContext, logger: Logger): Router {
  const router = new Router();
  const ownOrigin = new URL(core.config.baseUrl).origin;

  /** Runs a page handler; core errors become pages, anything unexpected a 500 page with a logged error id. */
  const handle = (run: (page: Page) => Promise<void>) => async (ctx: Context) => {
    const page: Page = { ctx, nonce: newNonce(), ownOrigin };
    setPageHeaders(ctx, { nonce: page.nonce, ownOrigin });
    try {
      // No client secret holds a NUL, and PostgreSQL could not even look one up.
      if (nulPath(ctx.params)) throw new DomainError(404, 'NOT_FOUND', 'Checkout not found');
      await run(page);
    } catch (error) {
      if (isDomainError(error) && error.status === 404)
        return message(
          page,
          404,
          'Checkout not found',
          'This checkout link is not valid. Check the address or ask the seller for a new link.',
        );
      if (isDomainError(error) && error.status === 410)
        return message(
          page,
          410,
          'This checkout has expired',
          'Checkouts are open for a limited time. Go back to the seller to start a new one.',
        );
      if (isDomainError(error) && error.status === 403)
        return message(page, 403, 'This checkout is closed', 'It can no longer be paid.');
      if (isDomainError(error) && (error.status === 413 || error.status === 415))
        return message(page, error.status, 'The form could not be read', error.message);
      const errorId = randomUUID();
      logger.error('unhandled error', {
        errorId,
        method: ctx.method,
        path: LOGGED_PATH,
        error: error instanceof Error ? error.stack : String(error),
      });
      message(
        page,
        500,
        'Something went wrong',
        `Nothing was charged. Try again; if it keeps failing, quote error id ${errorId}.`,
      );
    }
  };

  const render = (
    page: Page,
    checkout: CheckoutPublicWire,
    state: {
      status?: number;
      values?: FormValues | null;
      issues?: FieldIssue[];
      paymentError?: string | null;
      notice?: string | null;
    } = {},
  ) => {
    setPageHeaders(page.ctx, {
      nonce: page.nonce,
      ownOrigin,
      successUrl: checkout.success_url,
      embedOrigin: checkout.embed_origin,
    });
    if (checkout.status !== 'open') return closed(page, checkout);
    const props: CheckoutPageProps = {
      // The secret stays in the address bar only (the browser reads it from there): the default success URL and the
      // checkout's URL carry it too.
      checkout: { ...checkout, client_secret: '', url: '', success_url: '' },
      // The card number is never sent back to the browser, not even in the props the page hydrates from.
      values: state.values ? withoutCard(state.values) : null,
      issues: state.issues ?? [],
      paymentError: state.paymentError ?? null,
      notice: state.notice ?? null,
      countries: countryOptions(),
    };
    page.ctx.status = state.status ?? 200;
    page.ctx.type = 'text/html; charset=utf-8';
    page.ctx.body = renderHydratedPage({
      title: `${checkout.product?.name ?? 'Checkout'} · ${checkout.organization.name}`,
      nonce: page.nonce,
      bundle: 'checkout',
      props,
      app: <CheckoutPage {...props} />,
    });
  };

  router.get(
    '/checkout/:client_secret',
    handle(async (page) => render(page, await core.checkouts.clientGet(page.ctx.params.client_secret!))),
  );

  router.get(
    '/checkout/:client_secret/confirmation',
    handle(async (page) => {
      const checkout = await core.checkouts.clientGet(page.ctx.params.client_secret!);
      setPageHeaders(page.ctx, { nonce: page.nonce, ownOrigin, embedOrigin: checkout.embed_origin });
      if (checkout.status === 'expired') return closed(page, checkout);
      send(page, 200, <ConfirmationPage checkout={checkout} nonce={page.nonce} />);
    }),
  );

  router.post(
    '/checkout/:client_secret',
    handle(async (page) => {
      const { ctx } = page;
      const secret = ctx.params.client_secret!;
      if (!postOriginAllowed(ctx, ownOrigin))
        return message(
          page,
          403,
          'This form was sent from another site',
          'For your safety it was not accepted. Open the checkout link again.',
        );
      if (!ctx.is('application/x-www-form-urlencoded'))
        return message(
          page,
          415,
          'The form could not be read',
          'The checkout form must be sent as a form (application/x-www-form-urlencoded).',
        );
      const form = ((await readBody(ctx, { maxBytes: MAX_FORM_BYTES, allowForm: true })) ?? {}) as FormValues;
      let checkout = await core.checkouts.clientGet(secret);
      if (checkout.status !== 'open') return render(page, checkout);
      // A NUL is refused as /v1 refuses it (PostgreSQL text cannot hold one), before anything is saved.
      const nul = nulPath(form);
      if (nul) {
        const shown = Object.fromEntries(Object.entries(form).map(([key, value]) => [key, value.replaceAll('\0', '')]));
        const issue = { loc: ['body', ...nul], msg: 'This field cannot contain NUL characters.', type: 'string_type' };
        return render(page, checkout, { status: 422, values: shown, issues: [issue] });
      }

      // 1. Save what the buyer typed (also when paying), so the totals shown are the totals charged.
      const read = readForm(form, checkout);
      const issues = [...read.issues];
      const parsed = checkoutUpdatePublicSchema.safeParse(read.changes);
      if (!parsed.success) issues.push(...zodIssues(parsed.error));
      else {
        try {
          checkout = await core.checkouts.clientUpdate(secret, parsed.data);
        } catch (error) {
          if (!isDomainError(error) || error.status !== 422) throw error;
          issues.push(...(error.details as FieldIssue[]));
        }
      }
      // What the buyer typed is shown again only when something in it was refused; otherwise the saved checkout.
      const values = issues.length > 0 ? form : null;
      if (read.action !== 'pay' || issues.length > 0)
        return render(page, checkout, { status: issues.length > 0 ? 422 : 200, values, issues });

      // 2. Pay: only a total the buyer has seen, with what the page asks for, and a sandbox test card.
      const pay = payIssues(checkout, read.cardNumber);
      if (pay.issues.length > 0) return render(page, checkout, { status: 422, values: form, issues: pay.issues });
      if (read.shownTotal !== String(checkout.total_amount)) {
        const notice = `The total is now ${formatMoney(checkout.total_amount, checkout.currency)}. Check it and press Pay again.`;
        return render(page, checkout, { values: form, notice });
      }
      try {
        const confirmed = await core.confirmCheckout(secret, { confirmation_token_id: pay.token });
        // A redirect of our own making, with no body: the default success URL carries the client secret.
        ctx.status = 303;
        ctx.set('Location', successLocation(confirmed));
        ctx.body = '';
      } catch (error) {
        if (!isDomainError(error)) throw error;
        if (error.status === 400 && error.code === 'PaymentError') {
          return render(page, await core.checkouts.clientGet(secret), {
            status: 400,
            values: form,
            paymentError: error.message,
          });
        }
        if (error.status === 422)
          return render(page, await core.checkouts.clientGet(secret), {
            status: 422,
            values: form,
            issues: error.details as FieldIssue[],
          });
        if (error.status === 403 || error.status === 410) return render(page, await core.checkouts.clientGet(secret));
        throw error;
      }
    }),
  );
  return router;
}
