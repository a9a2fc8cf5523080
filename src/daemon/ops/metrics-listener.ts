import { createServer, type Server } from 'node:http';
import type { Logger } from '../logger.js';
import type { DaemonMetrics } from './metrics.js';

/**
 * GET /metrics on a listener of its own (TILL_METRICS=<host>:<port>), without authentication: bind it to an address
 * only the scraper reaches. Nothing else answers there.
 */
export async function startMetricsListener(
  metrics: DaemonMetrics,
  address: { host: string; port: number },
  logger: Logger,
): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    metrics.render().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (error: unknown) => {
        logger.error('metrics scrape failed', { error: String(error) });
        response.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
