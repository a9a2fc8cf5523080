import type { Strategies } from '../core/benefit-grants/strategies.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCore, type CoreContext } from '../core/context.js';
import type { Clock } from '../core/kernel/clock.js';
import type { PaymentProcessor } from '../core/payments/processor.js';
import { HOUR, MINUTE } from '../core/kernel/clock.js';
import type { TillConfig } from '../core/config/index.js';
import { createDb } from '../core/database/index.js';
import { migrateLatest } from '../core/database/index.js';
import { createSecretBox } from '../core/kernel/secret-box.js';
import { rebuildRollups } from '../core/metrics/rollups.js';
import { settleTotals } from '../core/meters/pending-totals.js';
import { recountHeldTotals } from '../core/meters/totals-recount.js';
import { createApp } from './app.js';
import { limitConnectionsPerClient, loadServerLimits, serverOptions, type ServerLimits } from './limits.js';
import { createLogger, type Logger } from './logger.js';
import { startMailDelivery } from './workers/mail-delivery.js';
import { startWebhookDelivery } from './workers/webhook-delivery.js';
import { startReconciler } from './workers/reconciler.js';
import { crashHookFromEnv } from './crash-hook.js';
import { startSchedulerWorker } from './workers/scheduler.js';
import { SimulatedClock } from '../core/scheduler/simulated-clock.js';
import { systemClock } from '../core/kernel/clock.js';
import { createOperations } from '../core/operations/service.js';
import { createMetrics } from './ops/metrics.js';
import { startHeapTrimmer } from './ops/heap-trim.js';
import { startMetricsListener } from './ops/metrics-listener.js';
import { opsRouter, type OpsState } from './ops/routes.js';

/**
 * How long a shutdown waits for requests in flight before cutting their connections. Webhook deliveries in flight
 * finish within the same span when TILL_WEBHOOK_TIMEOUT_MS is at most this (its default).
 */
export const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningDaemon {
  url: string;
  port: number;
  server: Server;
  core: CoreContext;
  close(): Promise<void>;
}

export interface StartOptions {
  config: TillConfig;
  clock?: Clock;
  logger?: Logger;
  /** Take the base URL (and so the trusted origin) from the address actually bound, for port 0. */
  baseUrlFromListener?: boolean;
  /** Another payment processor than the sandbox (tests inject failing ones). */
  paymentProcessor?: PaymentProcessor;
  /** Test-only: grant strategies in place of the built-in ones (a strategy that fails, or needs the customer). */
  grantStrategies?: Strategies;
  /** Over the environment's (TILL_MAX_HEADER_BYTES, …) and the defaults. */
  limits?: Partial<ServerLimits>;
}

/**
 * Opens the database (taking SQLite's file lock), applies pending migrations, and listens. Used by
 * `till daemon run` and by the API tests, which pass port 0 and their own clock.
 */
export async function startDaemon(options: StartOptions): Promise<RunningDaemon> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const limits = loadServerLimits(process.env, options.limits);
  const crashAt = crashHookFromEnv(process.env);
  const db = createDb(config.databaseUrl, { exclusive: true });
  try {
    const box = createSecretBox(config.secret);
    await migrateLatest(db, {
      seal: (plaintext, context) => box.seal(plaintext, context),
      rebuildMetrics: rebuildRollups,
    });
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw error;
  }
  const server = createServer(serverOptions(limits));
  server.keepAliveTimeout = 65_000;
  server.timeout = limits.idleTimeoutMs;
  limitConnectionsPerClient(server, config.trustProxy ? 0 : limits.maxConnectionsPerClient);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  let clock = options.clock;
  if (!clock && config.clock === 'simulated') {
    try {
      clock = await SimulatedClock.open(db, systemClock.now());
    } catch (error) {
      server.close();
      await db.destroy();
      throw error;
    }
    logger.warn('TILL_CLOCK=simulated: time is a stored value moved by POST /api/admin/clock; not for real sales', {
      now: clock.now().toISOString(),
    });
  }
  const core = createCore({
    config: options.baseUrlFromListener ? { ...config, baseUrl: url } : config,
    db,
    clock,
    paymentProcessor: options.paymentProcessor,
    grantStrategies: options.grantStrategies,
    crashAt,
  });
  try {
    // Before anything is ingested: what a killed daemon held in memory and did not write (SQLite).
    await recountHeldTotals(db, core.clock.now());
    await core.bus.start();
  } catch (error) {
    server.close();
    await db.destroy();
    throw error;
  }
  const operations = createOperations({ db, clock: core.clock });
  const metrics = createMetrics(core, operations);
  const metricsConfig = config.metrics ?? { mode: 'admin' };
  const opsState: OpsState = { draining: false };
  const router = opsRouter({ operations, metrics, metricsConfig, secret: config.secret, state: opsState });
  let metricsServer: Server | null = null;
  if (metricsConfig.mode === 'listen') {
    try {
      metricsServer = await startMetricsListener(metrics, metricsConfig, logger);
    } catch (error) {
      server.close();
      await core.bus.close();
      await db.destroy();
      throw error;
    }
  }
  // Koa answers its own errors: the promise it returns never rejects.
  const handleRequest = createApp(core, logger, { router, metrics }).callback();
  server.on('request', (request, response) => void handleRequest(request, response));
  const mailDelivery = startMailDelivery(core, logger);
  core.background.onFailure((error, what) => logger.error(`${what} failed`, { error: String(error) }));
  const webhookDelivery = startWebhookDelivery(core, logger);
  const reconcilerWorker = startReconciler(core, logger);
  const schedulerWorker = startSchedulerWorker(core, logger);

  // Expired sessions and API keys are deleted when presented; this sweeps the ones nobody presents again.
  const sweeper = setInterval(() => {
    core.sessions.purgeExpired().catch((error) => logger.warn('session sweep failed', { error: String(error) }));
    core.apiKeys.purgeExpired().catch((error) => logger.warn('API key sweep failed', { error: String(error) }));
    core.idempotency.sweep().catch((error) => logger.warn('idempotency key sweep failed', { error: String(error) }));
    core.files
      .sweepAbandoned()
      .catch((error) => logger.warn('abandoned upload sweep failed', { error: String(error) }));
  }, HOUR);
  sweeper.unref();
  // API key use counted in memory reaches the database at least once a minute.
  const usageWriter = setInterval(() => {
    core.apiKeys.flushUsage().catch((error) => logger.warn('API key usage write failed', { error: String(error) }));
  }, MINUTE);
  usageWriter.unref();
  const heapTrimmer = startHeapTrimmer();

  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    server,
    core,
    close() {
      closing ??= (async () => {
        opsState.draining = true;
        clearInterval(sweeper);
        clearInterval(usageWriter);
        heapTrimmer.stop();
        // Stop accepting at once; requests in flight finish while the workers stop, all within SHUTDOWN_GRACE_MS.
        const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // A keep-alive connection whose request just finished would otherwise stay open until its idle timeout.
        const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
        const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        metricsServer?.close();
        metricsServer?.closeAllConnections();
        // The webhook worker's stop ends the event streams, which would otherwise hold the server open; it waits
        // for deliveries in flight and gives back the claims it had not started. The scheduler gives back unrun jobs.
        await Promise.all([schedulerWorker.stop(), webhookDelivery.stop(), serverClosed]);
        clearInterval(idleSweep);
        clearTimeout(cut);
        // Work that requests answered before the server closed still gets done.
        await core.background.settled();
        await settleTotals(db)?.catch((error) =>
          logger.warn('writing held meter totals failed', { error: String(error) }),
        );
        await core.apiKeys
          .flushUsage()
          .catch((error) => logger.warn('API key usage write failed', { error: String(error) }));
        await mailDelivery.stop();
        await reconcilerWorker.stop();
        metrics.close();
        await core.bus.close();
        await core.hasher.close();
        await db.destroy();
      })();
      return closing;
    },
  };
}
