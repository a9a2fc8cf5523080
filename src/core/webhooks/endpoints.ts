import { randomUUID } from 'node:crypto';
import type { Clock } from '../kernel/clock.js';
import { DAY } from '../kernel/clock.js';
import type { WebhooksConfig } from '../config/index.js';
import type { Db } from '../database/index.js';
import { retryingDeadlocks, transaction } from '../database/index.js';
import { fieldError, resourceNotFound } from '../polar-api/errors.js';
import type { Page } from '../kernel/pagination.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, organizationForCreate } from '../polar-api/actor.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import { endpointsRepository, type EndpointRecord } from './endpoints-repository.js';
import { eventsRepository } from './events-repository.js';
import type { EndpointCreateInput, EndpointUpdateInput, WebhookEndpointWire } from './schemas.js';
import { generateSecret } from './signer.js';
import { checkEndpointUrl } from './url-guard.js';
import { DEFAULT_MAX_CONCURRENCY } from './ordering.js';

/** After a rotation the old secret keeps signing (a second signature) this long, so receivers can switch over. */
export const SECRET_ROTATION_OVERLAP_MS = DAY;

export interface EndpointDeps {
  db: Db;
  clock: Clock;
  box: SecretBox;
  config: WebhooksConfig;
}

// The row id is authenticated with the secret, so a sealed secret copied into another endpoint no longer opens.
const secretContext = (id: string, which: 'secret' | 'previous_secret') => `webhook_endpoints:${id}:${which}`;

export function createEndpointService(deps: EndpointDeps) {
  const { db, clock, box, config } = deps;
  const repo = endpointsRepository(db);

  function wire(endpoint: EndpointRecord): WebhookEndpointWire {
    return {
      created_at: iso(endpoint.createdAt),
      modified_at: isoOrNull(endpoint.modifiedAt),
      id: endpoint.id,
      url: endpoint.url,
      name: endpoint.name,
      format: endpoint.format,
      secret: box.open(endpoint.sealedSecret, secretContext(endpoint.id, 'secret')),
      organization_id: endpoint.organizationId,
      events: endpoint.events as WebhookEndpointWire['events'],
      enabled: endpoint.enabled,
      max_concurrency: endpoint.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
    };
  }

  async function owned(actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<EndpointRecord> {
    const endpoint = await repo.findById(id);
    if (!endpoint) throw resourceNotFound();
    authorize(actor, endpoint.organizationId, mode);
    return endpoint;
  }

  function checkFormat(format: string | null | undefined): void {
    // Discord and Slack payloads are chat messages re-rendered from the event; Till sends the event itself.
    if (format && format !== 'raw') throw fieldError(['body', 'format'], 'Only the raw format is supported.');
  }

  return {
    wire,

    /** The secrets that sign a delivery now: the current one, and the previous one during its overlap. */
    signingSecrets(endpoint: EndpointRecord, now: Date): string[] {
      const secrets = [box.open(endpoint.sealedSecret, secretContext(endpoint.id, 'secret'))];
      if (endpoint.sealedPreviousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
        secrets.push(box.open(endpoint.sealedPreviousSecret, secretContext(endpoint.id, 'previous_secret')));
      }
      return secrets;
    },

    async create(actor: MerchantActor, input: EndpointCreateInput): Promise<WebhookEndpointWire> {
      const organizationId = organizationForCreate(actor, input.organization_id);
      checkFormat(input.format);
      const url = await checkEndpointUrl(input.url, config.allowPrivateUrls);
      const id = randomUUID();
      const endpoint: EndpointRecord = {
        id,
        organizationId,
        url,
        name: input.name ?? null,
        format: input.format,
        events: [...new Set(input.events)],
        enabled: true,
        maxConcurrency: input.max_concurrency ?? null,
        sealedSecret: box.seal(generateSecret(), secretContext(id, 'secret')),
        sealedPreviousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: clock.now(),
        modifiedAt: null,
      };
      await repo.insert(endpoint);
      return wire(endpoint);
    },

    async list(
      actor: MerchantActor,
      query: { organization_id?: string[]; page: number; limit: number },
    ): Promise<Page<WebhookEndpointWire>> {
      const page = await repo.list(organizationFilter(actor, query.organization_id), {
        page: query.page,
        limit: query.limit,
        sorting: ['-created_at'],
      });
      return { items: page.items.map(wire), pagination: page.pagination };
    },

    async get(actor: MerchantActor, id: string): Promise<WebhookEndpointWire> {
      return wire(await owned(actor, id, 'read'));
    },

    async update(actor: MerchantActor, id: string, input: EndpointUpdateInput): Promise<WebhookEndpointWire> {
      const endpoint = await owned(actor, id, 'write');
      checkFormat(input.format);
      const now = clock.now();
      const changes: Parameters<typeof repo.update>[1] = { modifiedAt: now };
      if (input.url) changes.url = await checkEndpointUrl(input.url, config.allowPrivateUrls);
      if (input.name !== undefined) changes.name = input.name;
      if (input.format) changes.format = input.format;
      if (input.events) changes.events = [...new Set(input.events)];
      if (input.enabled !== undefined && input.enabled !== null) changes.enabled = input.enabled;
      // null sets it back to the default, as `name: null` clears the name.
      if (input.max_concurrency !== undefined) changes.maxConcurrency = input.max_concurrency;
      await transaction(db, async (trx) => {
        await endpointsRepository(trx).update(id, changes);
        if (changes.enabled === false && endpoint.enabled) await eventsRepository(trx).skipPending(id, now);
      });
      return wire({ ...endpoint, ...changes } as EndpointRecord);
    },

    /** A new secret at once; the old one still signs for SECRET_ROTATION_OVERLAP_MS. */
    async resetSecret(actor: MerchantActor, id: string): Promise<WebhookEndpointWire> {
      const endpoint = await owned(actor, id, 'write');
      const now = clock.now();
      const previous = box.open(endpoint.sealedSecret, secretContext(id, 'secret'));
      const changes = {
        sealedSecret: box.seal(generateSecret(), secretContext(id, 'secret')),
        sealedPreviousSecret: box.seal(previous, secretContext(id, 'previous_secret')),
        previousSecretExpiresAt: new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS),
        modifiedAt: now,
      };
      await repo.update(id, changes);
      return wire({ ...endpoint, ...changes });
    },

    async delete(actor: MerchantActor, id: string): Promise<void> {
      const endpoint = await owned(actor, id, 'write');
      // The cascade to the endpoint's events and deliveries takes its locks in the opposite order from a delivery
      // being recorded at the same moment; PostgreSQL then aborts one of the two as a deadlock. The delete is the
      // one safe to run again.
      await retryingDeadlocks(() => repo.delete(endpoint.id));
    },
  };
}

export type EndpointService = ReturnType<typeof createEndpointService>;
