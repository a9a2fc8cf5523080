import type { Knex } from 'knex';
import * as accountsAndSessions from './20261121000000_accounts_and_sessions.js';
import * as apiKeys from './20261121020000_api_keys.js';
import * as jwks from './20261121030000_jwks.js';
import * as mail from './20261121040000_mail.js';
import * as organizations from './20261121050000_organizations.js';
import * as v1Foundation from './20261121060000_v1_foundation.js';
import * as files from './20261121060100_files.js';
import * as benefitsAndCustomFields from './20261121060200_benefits_and_custom_fields.js';
import * as products from './20261121060300_products.js';
import * as discountsAndCheckoutLinks from './20261121060400_discounts_and_checkout_links.js';
import * as merchantSettings from './20261121060500_merchant_settings.js';
import * as customers from './20261121070000_customers.js';
import * as paymentsAndTax from './20261121070100_payments_and_tax.js';
import * as checkoutsOrdersSubscriptions from './20261121070200_checkouts_orders_subscriptions.js';
import * as webhooks from './20261121080000_webhooks.js';
import * as secretsAtRest from './20261122000000_secrets_at_rest.js';
import * as signInFailuresPerClient from './20261122000100_sign_in_failures_per_client.js';
import * as paymentReconciliation from './20261122010000_payment_reconciliation.js';
import * as paymentMethods from './20261201000000_payment_methods.js';
import * as schedulerAndClock from './20261201000100_scheduler_and_clock.js';
import * as normalizedEmail from './20261202000000_normalized_email.js';
import * as renewals from './20261210000000_renewals.js';
import * as subscriptionChanges from './20261211000000_subscription_changes.js';
import * as benefitGrants from './20261212000000_benefit_grants.js';
import * as downloadablesAndCustomerAccounts from './20261223000000_downloadables_and_customer_accounts.js';
import * as eventsAndMeters from './20261213000000_events_and_meters.js';
import * as webhookOrdering from './20261214000000_webhook_ordering.js';
import * as requestIds from './20261215000000_request_ids.js';
import * as webhookReplayBase from './20261217000000_webhook_replay_base.js';
import * as orderInvoices from './20261218000000_order_invoices.js';
import * as metricsRollups from './20261220000000_metrics_rollups.js';
import * as meterResets from './20261224000000_meter_resets.js';
import * as webhookEventRequestIds from './20261226000000_webhook_event_request_ids.js';
import * as keysetIndexes from './20261227000000_keyset_indexes.js';
import * as eventCustomerIndex from './20261228000000_event_customer_index.js';
import * as outboxDispatchMark from './20261229000000_outbox_dispatch_mark.js';
import * as payloadCompression from './20261229000100_payload_compression.js';
import * as meterTotalsMark from './20261230000000_meter_totals_mark.js';
import * as meterTotalsFillfactor from './20261231000000_meter_totals_fillfactor.js';
import * as eventCustomerIndexBySeq from './20261231000100_event_customer_index_by_seq.js';
import * as scheduledJobsSubjectIndex from './20270101000000_scheduled_jobs_subject_index.js';
import * as outboxPending from './20270102000000_outbox_pending.js';
import * as eventsByMinute from './20270103000000_events_by_minute.js';
import * as meterTotalsHeldThrough from './20270104000000_meter_totals_held_through.js';
import * as eventCustomerIndexByEpoch from './20270105000000_event_customer_index_by_epoch.js';
import * as changeMarks from './20270106000000_change_marks.js';
import * as eventTypeLabelSelector from './20270107000000_event_type_label_selector.js';

/**
 * What a migration may need beyond the database. A data migration that seals values at rest needs the daemon's
 * secret box; the caller passes it when it has TILL_SECRET, and such a migration refuses to run without it rather
 * than leave a value in plain text.
 */
export interface MigrationContext {
  seal?: (plaintext: string, context: string) => string;
  /** Builds an organization's metrics rollups from its tables (src/core/metrics/rollups.ts: rebuildRollups). */
  rebuildMetrics?: (knex: Knex, organizationId: string) => Promise<void>;
}

export interface TillMigration {
  up(knex: Knex, context: MigrationContext): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Every migration in order. The list is explicit (not a directory scan) so the same names are recorded whether
 * the daemon runs from TypeScript sources in tests or from compiled JavaScript in production and Docker.
 */
export const migrations: Array<{ name: string; module: TillMigration }> = [
  { name: '20261121000000_accounts_and_sessions', module: accountsAndSessions },
  { name: '20261121020000_api_keys', module: apiKeys },
  { name: '20261121030000_jwks', module: jwks },
  { name: '20261121040000_mail', module: mail },
  { name: '20261121050000_organizations', module: organizations },
  { name: '20261121060000_v1_foundation', module: v1Foundation },
  { name: '20261121060100_files', module: files },
  { name: '20261121060200_benefits_and_custom_fields', module: benefitsAndCustomFields },
  { name: '20261121060300_products', module: products },
  { name: '20261121060400_discounts_and_checkout_links', module: discountsAndCheckoutLinks },
  { name: '20261121060500_merchant_settings', module: merchantSettings },
  { name: '20261121070000_customers', module: customers },
  { name: '20261121070100_payments_and_tax', module: paymentsAndTax },
  { name: '20261121070200_checkouts_orders_subscriptions', module: checkoutsOrdersSubscriptions },
  { name: '20261121080000_webhooks', module: webhooks },
  { name: '20261122000000_secrets_at_rest', module: secretsAtRest },
  { name: '20261122000100_sign_in_failures_per_client', module: signInFailuresPerClient },
  { name: '20261122010000_payment_reconciliation', module: paymentReconciliation },
  { name: '20261201000000_payment_methods', module: paymentMethods },
  { name: '20261201000100_scheduler_and_clock', module: schedulerAndClock },
  { name: '20261202000000_normalized_email', module: normalizedEmail },
  { name: '20261210000000_renewals', module: renewals },
  { name: '20261211000000_subscription_changes', module: subscriptionChanges },
  { name: '20261212000000_benefit_grants', module: benefitGrants },
  { name: '20261213000000_events_and_meters', module: eventsAndMeters },
  { name: '20261214000000_webhook_ordering', module: webhookOrdering },
  { name: '20261215000000_request_ids', module: requestIds },
  { name: '20261217000000_webhook_replay_base', module: webhookReplayBase },
  { name: '20261218000000_order_invoices', module: orderInvoices },
  { name: '20261220000000_metrics_rollups', module: metricsRollups },
  { name: '20261223000000_downloadables_and_customer_accounts', module: downloadablesAndCustomerAccounts },
  { name: '20261224000000_meter_resets', module: meterResets },
  { name: '20261226000000_webhook_event_request_ids', module: webhookEventRequestIds },
  { name: '20261227000000_keyset_indexes', module: keysetIndexes },
  { name: '20261228000000_event_customer_index', module: eventCustomerIndex },
  { name: '20261229000000_outbox_dispatch_mark', module: outboxDispatchMark },
  { name: '20261229000100_payload_compression', module: payloadCompression },
  { name: '20261230000000_meter_totals_mark', module: meterTotalsMark },
  { name: '20261231000000_meter_totals_fillfactor', module: meterTotalsFillfactor },
  { name: '20261231000100_event_customer_index_by_seq', module: eventCustomerIndexBySeq },
  { name: '20270101000000_scheduled_jobs_subject_index', module: scheduledJobsSubjectIndex },
  { name: '20270102000000_outbox_pending', module: outboxPending },
  { name: '20270103000000_events_by_minute', module: eventsByMinute },
  { name: '20270104000000_meter_totals_held_through', module: meterTotalsHeldThrough },
  { name: '20270105000000_event_customer_index_by_epoch', module: eventCustomerIndexByEpoch },
  { name: '20270106000000_change_marks', module: changeMarks },
  { name: '20270107000000_event_type_label_selector', module: eventTypeLabelSelector },
];
