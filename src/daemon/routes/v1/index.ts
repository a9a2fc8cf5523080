import { registerBenefitGrantRoutes } from './benefit-grants.js';
import { registerLicenseKeyRoutes } from './license-keys.js';
import { registerDownloadablesRoutes } from './downloadables.js';
import { registerCustomerOAuthAccountRoutes } from './customer-oauth-accounts.js';
import type { CoreContext } from '../../../core/context.js';
import { resourceNotFound } from '../../../core/polar-api/errors.js';
import { tillVersion } from '../../../core/kernel/version.js';
import type { AuthCookies } from '../../auth/cookies.js';
import { createV1Auth } from '../../auth/v1-auth.js';
import { registerAccessTokenRoutes } from './access-tokens.js';
import { registerBenefitsRoutes } from './benefits.js';
import { registerCheckoutLinksRoutes } from './checkout-links.js';
import { registerCustomFieldsRoutes } from './custom-fields.js';
import { registerCustomerPortalRoutes } from './customer-portal.js';
import { registerCustomerSessionsRoutes } from './customer-sessions.js';
import { registerCustomersRoutes } from './customers.js';
import { registerExportsRoutes } from './exports.js';
import { registerMetricsRoutes } from './metrics.js';
import { registerDiscountsRoutes } from './discounts.js';
import { renderDocsPage } from './docs.js';
import { registerFilesRoutes } from './files.js';
import { buildOpenApi } from './openapi.js';
import { V1Api } from './operation.js';
import { registerOrganizationsRoutes } from './organizations.js';
import { registerProductsRoutes } from './products.js';
import { registerTaxRateRoutes } from './tax-rates.js';
import { registerCheckoutRoutes } from './checkouts.js';
import { registerWebhooksRoutes } from './webhooks.js';
import { registerOrdersRoutes } from './orders.js';
import { registerOrderDocumentsRoutes } from './order-documents.js';
import { registerSubscriptionsRoutes } from './subscriptions.js';
import { registerRefundsRoutes } from './refunds.js';
import { registerCustomerPortalBillingRoutes } from './customer-portal-billing.js';
import { registerPaymentMethodsRoutes } from './payment-methods.js';
import { registerEventsRoutes } from './events.js';
import { registerMetersRoutes } from './meters.js';

/** The Polar-compatible merchant API under /v1: one module per resource, each a list of operations. */
export function v1Router(core: CoreContext, cookies: AuthCookies) {
  const api = new V1Api({ authenticate: createV1Auth(core, cookies), idempotency: core.idempotency });
  registerOrganizationsRoutes(api, core);
  registerAccessTokenRoutes(api, core);
  registerFilesRoutes(api, core);
  registerBenefitsRoutes(api, core);
  registerCustomFieldsRoutes(api, core);
  registerProductsRoutes(api, core);
  registerDiscountsRoutes(api, core);
  registerCheckoutLinksRoutes(api, core);
  registerTaxRateRoutes(api, core);
  registerCheckoutRoutes(api, core);
  registerExportsRoutes(api, core);
  registerMetricsRoutes(api, core);
  registerCustomersRoutes(api, core);
  registerCustomerSessionsRoutes(api, core);
  registerCustomerPortalRoutes(api, core);
  registerOrdersRoutes(api, core);
  registerOrderDocumentsRoutes(api, core);
  registerSubscriptionsRoutes(api, core);
  registerRefundsRoutes(api, core);
  registerCustomerPortalBillingRoutes(api, core);
  registerBenefitGrantRoutes(api, core);
  registerLicenseKeyRoutes(api, core);
  registerDownloadablesRoutes(api, core);
  registerCustomerOAuthAccountRoutes(api, core);
  registerPaymentMethodsRoutes(api, core);
  registerWebhooksRoutes(api, core);
  registerEventsRoutes(api, core);
  registerMetersRoutes(api, core);

  // Built on first request: the operations are all registered by then and the document never changes afterwards.
  let document: Record<string, unknown> | null = null;
  const openApi = () =>
    (document ??= buildOpenApi(api.operations, { version: tillVersion(), serverUrl: core.config.baseUrl }));
  api.router.get('/v1/openapi.json', (ctx) => {
    ctx.body = openApi();
  });
  api.router.get('/v1/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = renderDocsPage(openApi() as Parameters<typeof renderDocsPage>[0]);
  });
  // Anything else under /v1 is Polar's 404, not the empty body /api/auth answers.
  api.router.all(/^\/v1(\/.*)?$/, () => {
    throw resourceNotFound();
  });
  return api.router;
}
