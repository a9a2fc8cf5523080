// A minimal Node server around ./auth.mjs: Better Auth's routes under /api/auth (the Polar plugin's among them),
// a success page for the checkout to return to, and /demo/webhooks showing what the webhook callbacks received.
import { createServer } from 'node:http';
import { toNodeHandler } from 'better-auth/node';
import { createAuth } from './auth.mjs';

/** @param {string} name */
function required(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`better-auth-app: set ${name} (see examples/better-auth-app/README.md)`);
    process.exit(2);
  }
  return value;
}

const config = {
  polarServerURL: required('POLAR_SERVER_URL'),
  polarAccessToken: required('POLAR_ACCESS_TOKEN'),
  polarWebhookSecret: required('POLAR_WEBHOOK_SECRET'),
  secret: required('BETTER_AUTH_SECRET'),
  products: [{ productId: required('POLAR_PRODUCT_ID'), slug: process.env.POLAR_PRODUCT_SLUG ?? 'pro' }],
};
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3000);

const server = createServer();
server.listen(port, host, () => {
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  // With PORT=0 the URL is known only now, so Better Auth is created once the server listens.
  const baseURL = process.env.BETTER_AUTH_URL ?? `http://${host}:${address.port}`;
  const { auth, received } = createAuth({ ...config, baseURL });
  const authHandler = toNodeHandler(auth);
  server.on('request', (request, response) => {
    const path = new URL(request.url ?? '/', baseURL).pathname;
    if (path.startsWith('/api/auth/')) {
      void authHandler(request, response);
    } else if (path === '/demo/webhooks' && request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
    } else if (path === '/success' && request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('Thank you for your purchase.\n');
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
    }
  });
  // The test (and a developer) read this line to learn where the app listens.
  console.log(`better-auth-app listening on ${baseURL}`);
});
