import type { Background } from './kernel/background.js';
import type { AccessTokenService } from './access-tokens/service.js';
import type { ApiKeyService } from './api-keys/service.js';
import type { CustomerService } from './customers/service.js';
import type { CustomerSessionService } from './customers/sessions.js';
import type { BenefitService } from './benefits/service.js';
import type { CustomFieldService } from './custom-fields/service.js';
import type { AuthService } from './auth/service.js';
import type { EmailFlows } from './auth/email-flows.js';
import type { DeleteUserService } from './account-deletion/delete-user.js';
import type { FilesService } from './files/service.js';
import type { PasswordHasher } from './auth/password-hasher.js';
import type { SessionService } from './auth/sessions.js';
import type { Clock } from './kernel/clock.js';
import type { TillConfig } from './config/index.js';
import type { InvalidationBus } from './cache/invalidation.js';
import type { Changing } from './cache/changing.js';
import type { ReadCache } from './cache/read-cache.js';
import type { Db } from './database/index.js';
import type { IdempotencyStore } from './polar-api/idempotency.js';
import type { TaxService } from './tax/service.js';
import type { CheckoutService } from './checkouts/service.js';
import type { CheckoutConfirmation } from './checkouts/confirm.js';
import type { PaymentProcessor } from './payments/processor.js';
import type { SecretBox } from './kernel/secret-box.js';
import type { JwtService } from './jwt/service.js';
import type { MailService } from './mail/service.js';
import type { OAuthService } from './oauth/service.js';
import type { OrganizationService } from './organizations/service.js';
import type { ProductService } from './products/service.js';
import type { DiscountService } from './discounts/service.js';
import type { CheckoutLinkService } from './checkout-links/service.js';
import type { WebhookService } from './webhooks/service.js';
import type { OrderService } from './orders/service.js';
import type { ExportsService } from './exports/service.js';
import type { MetricsService } from './metrics/service.js';
import type { OrderDocumentsService } from './order-documents/service.js';
import type { SubscriptionService } from './subscriptions/service.js';
import type { SubscriptionChangeService } from './subscription-changes/service.js';
import type { RefundService } from './refunds/service.js';
import type { CustomerPortalService } from './customer-portal/service.js';
import type { HostedPortalService } from './customer-portal/hosted.js';
import type { PaymentMethodService } from './payment-methods/service.js';
import type { PaymentMethodVault } from './payments/methods.js';
import type { Scheduler } from './scheduler/service.js';
import type { EventService } from './events/service.js';
import type { MeterService } from './meters/service.js';
import type { ClockControl } from './scheduler/advance.js';
import type { BenefitGrantService } from './benefit-grants/service.js';
import type { LicenseKeyService } from './license-keys/service.js';
import type { DownloadablesService } from './downloadables/service.js';
import type { CustomerAccountService } from './customer-accounts/service.js';
import type { PaymentRetry } from './renewals/retry.js';

/** Everything a request handler or worker needs, built once per daemon. Tests build it with their own clock. */
export interface CoreContext {
  config: TillConfig;
  db: Db;
  clock: Clock;
  hasher: PasswordHasher;
  /** Tells other daemons on the same PostgreSQL what changed; started by the daemon, not by createCore. */
  bus: InvalidationBus;
  /**
   * Organization rows, catalogs and access tokens every request reads, kept across requests; handed to the
   * services whose repositories cache (cache/read-cache.ts).
   */
  readCache: ReadCache;
  /** Runs a change that cached rows depend on: announces it to every daemon's caches (cache/changing.ts). */
  changing: Changing;
  sessions: SessionService;
  auth: AuthService;
  apiKeys: ApiKeyService;
  /** Encrypts secrets kept in the database (private keys, OAuth tokens, webhook secrets). */
  secretBox: SecretBox;
  jwt: JwtService;
  /** Outgoing mail: written with the change that causes it, delivered by the daemon's mail worker. */
  mail: MailService;
  /** Work a request starts but does not wait for (reset mails, sign-ups under required verification). */
  background: Background;
  /** Verification, password reset, change of address and deletion, all through mail. */
  emailFlows: EmailFlows & { deleteUser: DeleteUserService };
  /** Social sign-in: provider catalogue, OAuth state, callbacks, ID tokens. */
  oauth: OAuthService;
  /** Better Auth's organization plugin: organizations, members and their roles. */
  organizations: OrganizationService;
  /** /v1: organization access tokens (Polar's OATs). */
  accessTokens: AccessTokenService;
  /** /v1: uploaded files (downloadables, product medias, avatars) and their bytes under TILL_FILES_DIR. */
  files: FilesService;
  /** /v1: benefits products grant (soft-deleted, as in Polar). */
  benefits: BenefitService;
  /** /v1: custom fields checkouts ask for. */
  customFields: CustomFieldService;
  /** /v1: products and their prices, the hub of the catalog. */
  products: ProductService;
  /** /v1: Idempotency-Key claims and stored answers. */
  idempotency: IdempotencyStore;
  /** /v1: customers (soft-deleted, as in Polar) and their state; checkouts use customers/find-or-create.ts. */
  customers: CustomerService;
  /** /v1: customer portal sessions and what a customer may do in the portal. */
  customerSessions: CustomerSessionService;
  /** /v1: discounts (soft-deleted, as in Polar); `redeem` in discounts/redemption.ts counts their use. */
  discounts: DiscountService;
  /** /v1: checkout links; the public redirect resolves them with checkout-links/resolve.ts. */
  checkoutLinks: CheckoutLinkService;
  /** /v1: tax rates by country and state. */
  tax: TaxService;
  /** Charges and refunds: the built-in sandbox processor, with Stripe's test cards. */
  paymentProcessor: PaymentProcessor;
  /** Keeps cards with the processor without charging them, and describes kept ones (payments/methods.ts). */
  paymentMethodVault: PaymentMethodVault;
  /** /v1: customers' saved payment methods, for the merchant (list) and in the portal (list, add, delete). */
  paymentMethods: PaymentMethodService;
  checkouts: CheckoutService;
  /** Confirms a checkout: the one race-safe path from payment to order. */
  confirmCheckout: CheckoutConfirmation;
  /** /v1: webhook endpoints, delivery (driven by the daemon's worker), the delivery log and the event stream. */
  webhooks: WebhookService;
  /** /v1: orders (created by confirmed checkouts) and their invoice details. */
  orders: OrderService;
  /** /v1: CSV exports of orders, subscriptions and customers. */
  exports: ExportsService;
  /** /v1: a past-due subscription's charge retried now (Till's retry-payment). */
  retryPayment: PaymentRetry;
  /** /v1/metrics: figures per period from the rollups kept with each change. */
  metrics: MetricsService;
  /** Invoices and receipts of orders (PDF behind signed links), for merchants and customers. */
  orderDocuments: OrderDocumentsService;
  /** /v1: subscriptions: cancel, uncancel, revoke. */
  subscriptions: SubscriptionService;
  /** /v1 and the portal: changes of plan with proration, pending updates, pause and resume. */
  subscriptionChanges: SubscriptionChangeService;
  /** /v1: refunds, never more than an order's refundable amount, even under concurrent requests. */
  refunds: RefundService;
  /** /v1/customer-portal: a customer's own orders, subscriptions and benefit grants. */
  customerPortal: CustomerPortalService;
  /** The hosted portal page: its organization by slug and the plans a customer may move to. */
  hostedPortal: HostedPortalService;
  /** Settles checkouts and refunds a crash left in flight (driven by the daemon's reconciler worker). */
  reconciler: Reconciler;
  /** Durable due work (checkout expiries, cancels at period end), run by the daemon's scheduler worker. */
  scheduler: Scheduler;
  /** /v1: benefit grants for the merchant and in the portal; the grant engine itself runs as scheduled jobs. */
  benefitGrants: BenefitGrantService;
  /** /v1: license keys for the merchant and in the portal, and the public validate, activate and deactivate. */
  licenseKeys: LicenseKeyService;
  /** /v1/customer-portal/downloadables: granted files with signed links, and the bytes behind a link. */
  downloadables: DownloadablesService;
  /** /v1/customer-portal/oauth-accounts: customers' GitHub and Discord accounts for those benefits. */
  customerAccounts: CustomerAccountService;
  /** /v1: usage events: ingestion (folded into meters' running aggregates), the event list, event types. */
  events: EventService;
  /** /v1: meters, their quantities, customer meters and the portal's meters. */
  meters: MeterService;
  /** Under TILL_CLOCK=simulated (the clock is a SimulatedClock): moves it and runs what falls due; otherwise null. */
  clockControl: ClockControl | null;
}

export interface Reconciler {
  /** Rows claimed per kind and round; a round that claims a full batch of either is followed by another. */
  readonly batchSize: number;
  /**
   * Claims and settles what stayed `confirmed` (checkouts) or `pending` (refunds) longer than the lease; returns the
   * most rows claimed of one kind. A row that fails is reported and retried after the lease.
   */
  runOnce(onError: (error: unknown, row: { kind: 'checkout' | 'refund'; id: string }) => void): Promise<number>;
}
