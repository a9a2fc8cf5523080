import { createBackground } from './kernel/background.js';
import { createAccessTokenService } from './access-tokens/service.js';
import { createApiKeyService } from './api-keys/service.js';
import { createCustomerService } from './customers/service.js';
import { createCustomerSessionService } from './customers/sessions.js';
import { createBenefitService } from './benefits/service.js';
import { createCustomFieldService } from './custom-fields/service.js';
import { createAuthService } from './auth/service.js';
import { createEmailFlows } from './auth/email-flows.js';
import { createDeleteUserService } from './account-deletion/delete-user.js';
import { apiKeysRepository } from './api-keys/repository.js';
import { createFilesService } from './files/service.js';
import { createPasswordHasher, type PasswordHasher } from './auth/password-hasher.js';
import { createSessionService } from './auth/sessions.js';
import type { Clock } from './kernel/clock.js';
import { MINUTE, systemClock } from './kernel/clock.js';
import { loadBenefitPlatformsConfig, type TillConfig } from './config/index.js';
import { InvalidationBus } from './cache/invalidation.js';
import { createChanging } from './cache/changing.js';
import { ReadCache } from './cache/read-cache.js';
import type { Db } from './database/index.js';
import { idempotencyStore } from './polar-api/idempotency.js';
import { createTaxService } from './tax/service.js';
import { createCheckoutService } from './checkouts/service.js';
import { createCheckoutConfirmation } from './checkouts/confirm.js';
import type { PaymentProcessor } from './payments/processor.js';
import { createSandboxProcessor } from './payments/sandbox.js';
import { sandboxRecordsRepository } from './payments/sandbox-repository.js';
import { noCrash, type CrashHook } from './kernel/crash.js';
import { createCheckoutSettlement } from './checkouts/settlement.js';
import { createCheckoutReconciler } from './checkouts/reconcile.js';
import { createSecretBox } from './kernel/secret-box.js';
import { createJwtService } from './jwt/service.js';
import { createMailService } from './mail/service.js';
import { createOAuthService } from './oauth/service.js';
import { createOrganizationService } from './organizations/service.js';
import { createProductService } from './products/service.js';
import { createDiscountService } from './discounts/service.js';
import { productLookup } from './discounts/loaders.js';
import { createCheckoutLinkService } from './checkout-links/service.js';
import { createWebhookService } from './webhooks/service.js';
import { createOrderService } from './orders/service.js';
import { createExportsService } from './exports/service.js';
import { createMetricsService } from './metrics/service.js';
import { deferRollups } from './metrics/rollups.js';
import { addEventWriter } from './kernel/outbox.js';
import { createOrderDocumentsService } from './order-documents/service.js';
import { createSubscriptionService } from './subscriptions/service.js';
import { createSubscriptionChangeService } from './subscription-changes/service.js';
import { activeSubscriptionsOf } from './subscriptions/state.js';
import { createRefundService } from './refunds/service.js';
import { createCustomerPortalService } from './customer-portal/service.js';
import { createHostedPortalService } from './customer-portal/hosted.js';
import { createPaymentMethodService } from './payment-methods/service.js';
import type { PaymentMethodVault } from './payments/methods.js';
import { createSandboxVault } from './payments/sandbox-methods.js';
import { createScheduler } from './scheduler/service.js';
import { createEventService } from './events/service.js';
import { meterBackfillHandler, METER_BACKFILL_JOB } from './meters/backfill.js';
import { activeMetersOf } from './meters/customer-meters.js';
import { createMeterService } from './meters/service.js';
import { CLOCK_KEY, SimulatedClock } from './scheduler/simulated-clock.js';
import { createClockControl } from './scheduler/advance.js';
import { CHECKOUT_EXPIRY_JOB, checkoutExpiryHandler } from './checkouts/expiry.js';
import { createBenefitGrantService } from './benefit-grants/service.js';
import { createGrantEngine } from './benefit-grants/engine.js';
import { grantBatchHandlers, grantJobHandlers } from './benefit-grants/handlers.js';
import { defaultStrategies, type Strategies } from './benefit-grants/strategies.js';
import { createLicenseKeyService } from './license-keys/service.js';
import { meterCreditStrategy } from './metered-billing/credit-strategy.js';
import { createDownloadablesService } from './downloadables/service.js';
import { createCustomerAccountService } from './customer-accounts/service.js';
import { platformStrategies } from './benefit-platforms/strategies.js';
import { fileStorage } from './files/storage.js';
import { trialChanges } from './renewals/trials.js';
import { registerRenewalJobs, renewalCycle } from './renewal-jobs.js';
import { retryPastDueOnNewDefault } from './renewals/dunning.js';
import { createPaymentRetry } from './renewals/retry.js';
import type { CoreContext, Reconciler } from './core-context.js';
import { dueWork } from './clock-due-work.js';
import { settleTotals } from './meters/pending-totals.js';

export type { CoreContext, Reconciler } from './core-context.js';

export function createCore(options: {
  config: TillConfig;
  db: Db;
  clock?: Clock;
  hasher?: PasswordHasher;
  paymentProcessor?: PaymentProcessor;
  paymentMethodVault?: PaymentMethodVault;
  /** Test-only: stops the process at a named point where money is in flight (kernel/crash.ts). */
  crashAt?: CrashHook;
  /** Test-only: grant strategies in place of the built-in ones, by benefit type. */
  grantStrategies?: Strategies;
}): CoreContext {
  const { config, db } = options;
  // The metrics rollups follow every order, subscription and checkout event in the transaction that records it.
  addEventWriter(deferRollups);
  const clock = options.clock ?? systemClock;
  const hasher = options.hasher ?? createPasswordHasher({ cost: config.bcryptCost, workers: config.hashWorkers });
  // The bus's handlers reach the caches through `sessions`, `apiKeys` and `readCache`, which exist by the time any
  // arrive.
  const bus = new InvalidationBus(config.databaseUrl, {
    onKey: (key) => {
      if (key === CLOCK_KEY && clock instanceof SimulatedClock) void clock.refresh().catch(() => undefined);
      sessions.forgetKey(key);
      apiKeys.forgetKey(key);
      readCache.forgetKey(key);
    },
    onReset: () => {
      if (clock instanceof SimulatedClock) void clock.refresh().catch(() => undefined);
      sessions.clearCache();
      apiKeys.clearCache();
      readCache.clear();
    },
  });
  // As for sessions and API keys, a minute bounds what a change made behind Till's back (by hand in the database) can
  // leave behind; a change Till makes is announced and seen at once.
  const readCache = new ReadCache(bus, clock, MINUTE);
  const changing = createChanging(db, bus);
  const sessions = createSessionService({ db, clock, session: config.session, bus });
  const apiKeys = createApiKeyService({ db, clock, bus, session: config.session });
  const secretBox = createSecretBox(config.secret);
  const mail = createMailService({ db, clock, config: config.mail, box: secretBox });
  const background = createBackground();
  const mailFlows = createEmailFlows({ db, clock, config, hasher, sessions, mail, background });
  const deleteUser = createDeleteUserService({
    db,
    clock,
    config,
    flows: config.emailFlows,
    hasher,
    sessions,
    accountMail: mailFlows.accountMail,
  });
  const emailFlows = { ...mailFlows, deleteUser };
  const auth = createAuthService({
    db,
    clock,
    config,
    hasher,
    sessions,
    emailVerification: emailFlows.verificationHooks,
    background,
  });
  const jwt = createJwtService({ db, clock, config, box: secretBox });
  const oauth = createOAuthService({ db, clock, config, box: secretBox, sessions });
  const organizations = createOrganizationService({
    db,
    clock,
    config: config.organizations,
    sessions,
    mail,
    baseUrl: config.baseUrl,
    changing,
    beforeDelete: async (trx, organizationId) => {
      await apiKeysRepository(trx).deleteOwnedByOrganization(organizationId);
      await settleTotals(trx);
    },
  });
  const accessTokens = createAccessTokenService({ db, clock, cache: readCache, changing });
  const files = createFilesService({
    db,
    clock,
    config: config.files,
    baseUrl: config.baseUrl,
    secret: config.secret,
    changing,
  });
  const idempotency = idempotencyStore(db, clock, secretBox);
  const customers = createCustomerService({ db, clock, activeSubscriptionsOf, activeMetersOf });
  const tax = createTaxService({ db, clock });
  const crashAt = options.crashAt ?? noCrash;
  // The sandbox keeps its record of charges and refunds in the database, where it outlives a crash of the daemon.
  const paymentProcessor = options.paymentProcessor ?? createSandboxProcessor(sandboxRecordsRepository(db, clock));
  const paymentMethodVault = options.paymentMethodVault ?? createSandboxVault();
  const paymentMethods = createPaymentMethodService({
    db,
    clock,
    vault: paymentMethodVault,
    resolveCustomer: customers.resolve,
    // Dunning: a new default card retries the customer's past-due renewal orders at once.
    onNewDefault: retryPastDueOnNewDefault({ db, clock }),
  });
  const customerSessions = createCustomerSessionService({
    db,
    clock,
    baseUrl: config.baseUrl,
    activeSubscriptionsOf,
    defaultPaymentMethods: paymentMethods.defaults,
  });
  const checkoutUrls = { baseUrl: config.baseUrl, readCache, processor: paymentProcessor.name };
  const checkouts = createCheckoutService({ db, clock, urls: checkoutUrls });
  const settlement = createCheckoutSettlement({
    db,
    clock,
    processor: paymentProcessor,
    vault: paymentMethodVault,
    crashAt,
  });
  const confirmCheckout = createCheckoutConfirmation({
    db,
    clock,
    urls: checkoutUrls,
    processor: paymentProcessor,
    checkouts,
    settlement,
    crashAt,
  });
  const reconcileCheckouts = createCheckoutReconciler({
    db,
    clock,
    urls: checkoutUrls,
    processor: paymentProcessor,
    settlement,
  });
  const benefits = createBenefitService({ db, clock, changing });
  const customFields = createCustomFieldService({ db, clock, changing });
  const products = createProductService({ db, clock, baseUrl: config.baseUrl, readCache, changing });
  const catalog = productLookup({ baseUrl: config.baseUrl, readCache });
  const discounts = createDiscountService({ db, clock, products: catalog });
  const checkoutLinks = createCheckoutLinkService({ db, clock, baseUrl: config.baseUrl, products: catalog, readCache });
  const webhooks = createWebhookService({
    db,
    clock,
    config: config.webhooks,
    box: secretBox,
    mail,
    signingClock: clock instanceof SimulatedClock ? systemClock : clock,
  });
  const orders = createOrderService({ db, clock, baseUrl: config.baseUrl, readCache });
  const embed = { baseUrl: config.baseUrl, readCache };
  const cycle = renewalCycle(embed);
  const subscriptions = createSubscriptionService({
    db,
    clock,
    baseUrl: config.baseUrl,
    readCache,
    changeTrial: trialChanges(cycle),
  });
  const subscriptionChanges = createSubscriptionChangeService({
    db,
    clock,
    processor: paymentProcessor,
    baseUrl: config.baseUrl,
    readCache,
  });
  const refunds = createRefundService({
    db,
    clock,
    baseUrl: config.baseUrl,
    readCache,
    processor: paymentProcessor,
    crashAt,
  });
  const batchSize = 50;
  const reconciler: Reconciler = {
    batchSize,
    async runOnce(onError) {
      const lease = config.reconcileLeaseMs;
      const checkoutsClaimed = await reconcileCheckouts(lease, batchSize, (error, id) =>
        onError(error, { kind: 'checkout', id }),
      );
      const refundsClaimed = await refunds.reconcile(lease, batchSize, (error, id) =>
        onError(error, { kind: 'refund', id }),
      );
      return Math.max(checkoutsClaimed, refundsClaimed);
    },
  };
  const customerPortal = createCustomerPortalService({ db, clock, baseUrl: config.baseUrl, readCache });
  const scheduler = createScheduler({ db, clock });
  scheduler.register(CHECKOUT_EXPIRY_JOB, checkoutExpiryHandler({ baseUrl: config.baseUrl, readCache }));
  const customerAccounts = createCustomerAccountService({
    db,
    clock,
    box: secretBox,
    config: config.benefitPlatforms ?? loadBenefitPlatformsConfig({}),
    baseUrl: config.baseUrl,
    secret: config.secret,
    trustedOrigins: config.trustedOrigins,
    customerSessions,
  });
  const grantEngine = createGrantEngine({
    strategies: {
      ...defaultStrategies(secretBox),
      meter_credit: meterCreditStrategy,
      ...platformStrategies(config.benefitPlatforms ?? loadBenefitPlatformsConfig({}), customerAccounts),
      ...options.grantStrategies,
    },
    activeSubscriptionsOf,
    crashAt,
  });
  for (const [kind, handler] of Object.entries(grantJobHandlers(grantEngine))) scheduler.register(kind, handler);
  for (const [kind, handler] of Object.entries(grantBatchHandlers(grantEngine))) scheduler.registerBatch(kind, handler);
  const benefitGrants = createBenefitGrantService({
    db,
    readCache,
    defaultPaymentMethods: paymentMethods.defaults,
  });
  const licenseKeys = createLicenseKeyService({ db, clock, box: secretBox, rateLimit: config.rateLimit });
  registerRenewalJobs(scheduler, {
    cycle,
    charging: { db, processor: paymentProcessor, mail, options: embed, crashAt },
  });
  scheduler.register(METER_BACKFILL_JOB, meterBackfillHandler());
  const events = createEventService({ db, clock, background, crashAt });
  const meters = createMeterService({ db, clock, changing });
  const clockControl =
    clock instanceof SimulatedClock
      ? createClockControl({
          clock,
          work: dueWork(scheduler, webhooks, mail),
          announce: (trx) => bus.announce(trx, [CLOCK_KEY]),
        })
      : null;
  return {
    config,
    db,
    clock,
    hasher,
    bus,
    readCache,
    changing,
    sessions,
    auth,
    apiKeys,
    secretBox,
    jwt,
    mail,
    background,
    emailFlows,
    oauth,
    organizations,
    accessTokens,
    files,
    idempotency,
    tax,
    paymentProcessor,
    paymentMethodVault,
    paymentMethods,
    checkouts,
    confirmCheckout,
    benefits,
    customFields,
    products,
    discounts,
    checkoutLinks,
    customers,
    customerSessions,
    webhooks,
    orders,
    exports: createExportsService({ db }),
    retryPayment: createPaymentRetry({ db, clock, options: embed }),
    metrics: createMetricsService({ db }),
    orderDocuments: createOrderDocumentsService({
      db,
      clock,
      baseUrl: config.baseUrl,
      secret: config.secret,
      readCache,
    }),
    subscriptions,
    subscriptionChanges,
    refunds,
    customerPortal,
    hostedPortal: createHostedPortalService({ db, readCache, baseUrl: config.baseUrl }),
    reconciler,
    scheduler,
    benefitGrants,
    licenseKeys,
    downloadables: createDownloadablesService({
      db,
      clock,
      baseUrl: config.baseUrl,
      secret: config.secret,
      storage: fileStorage(config.files.dir),
    }),
    customerAccounts,
    events,
    meters,
    clockControl,
  };
}
