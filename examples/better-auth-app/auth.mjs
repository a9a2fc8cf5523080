// Better Auth with Polar's own plugin, exactly as a Polar merchant writes it. The only Till-specific values are the
// three that come from the environment: the server URL, the organization access token and the webhook secret.
import { checkout, polar, portal, usage, webhooks } from '@polar-sh/better-auth';
import { Polar } from '@polar-sh/sdk';
import { betterAuth } from 'better-auth';
import { memoryAdapter } from 'better-auth/adapters/memory';

/**
 * @param {{
 *   baseURL: string;
 *   secret: string;
 *   polarServerURL: string;
 *   polarAccessToken: string;
 *   polarWebhookSecret: string;
 *   products: Array<{ productId: string; slug: string }>;
 * }} config
 */
export function createAuth(config) {
  // What the webhook callbacks saw, newest last. A real app would grant access in onOrderPaid; this one keeps a
  // record so the demo (and its test) can show that Till's webhooks arrived, signed, through the plugin.
  /** @type {{ payloads: Array<{ type: string; timestamp: string }>; paidOrders: Array<{ orderId: string; userId: string | null; productId: string | null; totalAmount: number }> }} */
  const received = { payloads: [], paidOrders: [] };

  const polarClient = new Polar({
    accessToken: config.polarAccessToken,
    // Polar's SDK puts /v1 in every path itself, so this is Till's root URL (as https://api.polar.sh is Polar's).
    serverURL: config.polarServerURL,
  });

  const auth = betterAuth({
    baseURL: config.baseURL,
    secret: config.secret,
    // Better Auth's built-in memory adapter keeps the demo free of a database; any adapter works the same.
    database: memoryAdapter({ user: [], session: [], account: [], verification: [] }),
    emailAndPassword: { enabled: true },
    plugins: [
      polar({
        client: polarClient,
        createCustomerOnSignUp: true,
        use: [
          checkout({
            products: config.products,
            successUrl: '/success?checkout_id={CHECKOUT_ID}',
            authenticatedUsersOnly: true,
          }),
          portal(),
          usage(),
          webhooks({
            secret: config.polarWebhookSecret,
            onPayload: async (payload) => {
              received.payloads.push({ type: payload.type, timestamp: payload.timestamp.toISOString() });
            },
            onOrderPaid: async (payload) => {
              received.paidOrders.push({
                orderId: payload.data.id,
                userId: payload.data.customer.externalId ?? null,
                productId: payload.data.productId ?? null,
                totalAmount: payload.data.totalAmount,
              });
            },
          }),
        ],
      }),
    ],
  });
  return { auth, received };
}
