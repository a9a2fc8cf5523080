import { randomUUID } from 'node:crypto';
import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import { customersRepository, type Customer } from '../customers/repository.js';
import type { CustomerActor } from '../customers/sessions.js';
import { customerWire } from '../customers/wire.js';
import { DomainError } from '../kernel/errors.js';
import type { Page } from '../kernel/pagination.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter } from '../polar-api/actor.js';
import { notPermitted, resourceNotFound } from '../polar-api/errors.js';
import { isUuid } from '../polar-api/schemas.js';
import { keyDigest, openKey } from './keys.js';
import { createKeyLookup } from './lookup.js';
import type { ActivationValues, LicenseKey } from './repository.js';
import { licenseKeysRepository } from './repository.js';
import type {
  CustomerLicenseKeyListQuery,
  LicenseKeyActivateInput,
  LicenseKeyActivationReadWire,
  LicenseKeyDeactivateInput,
  LicenseKeyListQuery,
  LicenseKeyReadWire,
  LicenseKeyUpdateInput,
  LicenseKeyValidateInput,
  LicenseKeyWithActivationsWire,
  ValidatedLicenseKeyWire,
} from './schemas.js';
import { activationWire, licenseKeyWire } from './wire.js';

/** Polar's allowance for the public (unauthenticated) validate, activate and deactivate calls: 3 per second per key. */
export const PUBLIC_CALLS_PER_SECOND = 3;
const MAX_BUCKETS = 100_000;

function tooManyRequests(retryAfterSeconds: number): DomainError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new DomainError(429, 'TooManyRequests', 'Rate limit exceeded', {
    headers: { 'Retry-After': String(seconds) },
  });
}

/** Conditions compare as Polar compares dicts: same keys, same values, in any order. */
function sameConditions(a: ActivationValues, b: ActivationValues): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && b[key] === a[key]);
}

/**
 * License keys: the merchant's view (/v1/license-keys), the customer's (portal list and get), and the public
 * validate, activate and deactivate calls that the merchant's software makes with a key and organization id.
 */
export function createLicenseKeyService(deps: { db: Db; clock: Clock; box: SecretBox; rateLimit: boolean }) {
  const { db, clock, box } = deps;
  const buckets = new Map<string, { count: number; resetAt: number }>();
  const lookup = createKeyLookup(db);

  /** Fixed one-second windows per key, in memory per daemon (as the daemon's other rate limits). */
  function hit(digest: string): void {
    if (!deps.rateLimit) return;
    const now = clock.now().getTime();
    let bucket = buckets.get(digest);
    if (!bucket || bucket.resetAt <= now) {
      if (buckets.size >= MAX_BUCKETS) for (const [k, b] of buckets) if (b.resetAt <= now) buckets.delete(k);
      if (buckets.size >= MAX_BUCKETS) buckets.clear();
      bucket = { count: 0, resetAt: now + 1000 };
      buckets.set(digest, bucket);
    }
    bucket.count += 1;
    if (bucket.count > PUBLIC_CALLS_PER_SECOND) throw tooManyRequests((bucket.resetAt - now) / 1000);
  }

  async function customersOf(on: Db, keys: readonly LicenseKey[]): Promise<Map<string, Customer>> {
    const ids = [...new Set(keys.map((key) => key.customerId))];
    return new Map((await customersRepository(on).findAnyByIds(ids)).map((c) => [c.id, c]));
  }

  async function wires(on: Db, keys: readonly LicenseKey[]): Promise<LicenseKeyReadWire[]> {
    const customers = await customersOf(on, keys);
    return keys.map((key) => licenseKeyWire(key, openKey(box, key), customerWire(customers.get(key.customerId)!)));
  }

  async function withActivations(on: Db, key: LicenseKey): Promise<LicenseKeyWithActivationsWire> {
    const [wire] = await wires(on, [key]);
    const activations = await licenseKeysRepository(on).activationsOf([key.id]);
    return { ...wire!, activations: activations.map(activationWire) };
  }

  async function owned(actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<LicenseKey> {
    const key = isUuid(id) ? await licenseKeysRepository(db).findById(id) : null;
    if (!key) throw resourceNotFound();
    authorize(actor, key.organizationId, mode);
    return key;
  }

  /**
   * The key a call names; an unknown key (or organization) is Polar's plain 404. `actor` is the merchant for the
   * authenticated calls; without one the call is public and counts against the key's rate limit.
   */
  async function presented(on: Db, organizationId: string, plain: string, actor?: MerchantActor): Promise<LicenseKey> {
    const digest = keyDigest(plain);
    if (actor) authorize(actor, organizationId, 'write');
    else hit(digest);
    const key = await licenseKeysRepository(on).findByDigest(organizationId, digest);
    if (!key) throw resourceNotFound();
    return key;
  }

  return {
    async list(actor: MerchantActor, query: LicenseKeyListQuery): Promise<Page<LicenseKeyReadWire>> {
      const page = await licenseKeysRepository(db).list(
        { organizationIds: organizationFilter(actor, query.organization_id), benefitIds: query.benefit_id },
        { ...query, sorting: ['-created_at'] },
      );
      return { items: await wires(db, page.items), pagination: page.pagination };
    },

    async get(actor: MerchantActor, id: string): Promise<LicenseKeyWithActivationsWire> {
      return withActivations(db, await owned(actor, id, 'read'));
    },

    async update(actor: MerchantActor, id: string, input: LicenseKeyUpdateInput): Promise<LicenseKeyReadWire> {
      const key = await owned(actor, id, 'write');
      const changes = {
        ...(input.status ? { status: input.status } : {}),
        ...(input.usage !== undefined ? { usage: input.usage } : {}),
        ...(input.limit_activations !== undefined ? { limitActivations: input.limit_activations } : {}),
        ...(input.limit_usage !== undefined ? { limitUsage: input.limit_usage } : {}),
        ...(input.expires_at !== undefined
          ? { expiresAt: input.expires_at === null ? null : new Date(input.expires_at) }
          : {}),
        modifiedAt: clock.now(),
      };
      await licenseKeysRepository(db).update(key.id, changes);
      return (await wires(db, [{ ...key, ...changes }]))[0]!;
    },

    async getActivation(actor: MerchantActor, id: string, activationId: string): Promise<LicenseKeyActivationReadWire> {
      const key = await owned(actor, id, 'read');
      const activation = isUuid(activationId)
        ? await licenseKeysRepository(db).findActivation(key.id, activationId)
        : null;
      if (!activation) throw resourceNotFound();
      return { ...activationWire(activation), license_key: (await wires(db, [key]))[0]! };
    },

    async listForCustomer(actor: CustomerActor, query: CustomerLicenseKeyListQuery): Promise<Page<LicenseKeyReadWire>> {
      // An id that cannot be a benefit matches no key (PostgreSQL would refuse it as a uuid).
      if (query.benefit_id && !isUuid(query.benefit_id))
        return { items: [], pagination: { total_count: 0, max_page: 0 } };
      const page = await licenseKeysRepository(db).list(
        {
          organizationIds: [actor.customer.organizationId],
          customerIds: [actor.customer.id],
          benefitIds: query.benefit_id ? [query.benefit_id] : undefined,
        },
        { ...query, sorting: ['-created_at'] },
      );
      return { items: await wires(db, page.items), pagination: page.pagination };
    },

    async getForCustomer(actor: CustomerActor, id: string): Promise<LicenseKeyWithActivationsWire> {
      const key = isUuid(id) ? await licenseKeysRepository(db).findById(id) : null;
      if (!key || key.customerId !== actor.customer.id) throw resourceNotFound();
      return withActivations(db, key);
    },

    /**
     * Polar's validate: the checks in its order, then the validation counted and the usage added atomically. The key
     * and its customer come in one read; a validation that adds no usage is counted in a write-only transaction
     * (grouped with concurrent ones on SQLite), one that adds usage by the conditional UPDATE that keeps the limit.
     */
    async validate(input: LicenseKeyValidateInput, actor?: MerchantActor): Promise<ValidatedLicenseKeyWire> {
      const now = clock.now();
      const digest = keyDigest(input.key);
      if (actor) authorize(actor, input.organization_id, 'write');
      else hit(digest);
      const repo = licenseKeysRepository(db);
      const found = await lookup.find(input.organization_id, digest);
      if (!found) throw resourceNotFound();
      const { key, customer } = found;
      if (key.status !== 'granted') throw resourceNotFound('License key is no longer active.');
      if (key.expiresAt && now.getTime() >= key.expiresAt.getTime()) throw resourceNotFound('License key has expired.');
      let activation = null;
      if (input.activation_id) {
        activation = await repo.findActivation(key.id, input.activation_id);
        if (!activation) throw resourceNotFound('License key activation not found.');
        if (
          Object.keys(activation.conditions).length > 0 &&
          !sameConditions(activation.conditions, input.conditions ?? {})
        )
          throw resourceNotFound('License key does not match required conditions');
      }
      if (input.benefit_id && input.benefit_id !== key.benefitId)
        throw resourceNotFound('License key does not match given benefit.');
      if (input.customer_id && input.customer_id !== key.customerId)
        throw resourceNotFound('License key does not match given customer.');
      const increment = input.increment_usage ?? 0;
      let counted = { usage: key.usage, validations: key.validations + 1 };
      if (increment > 0) {
        const marked = await repo.markValidated(key.id, increment, now);
        if (!marked) {
          // Another validation may have taken usage since the read: the message names what is left now.
          const current = (await repo.findById(key.id)) ?? key;
          const remaining = Math.max(0, (current.limitUsage ?? 0) - current.usage);
          throw notPermitted(`License key only has ${remaining} more usages.`);
        }
        counted = marked;
      } else {
        await transaction(db, (on) => [licenseKeysRepository(on).deferCountValidation(key.id, now)], {
          writeOnly: true,
        });
      }
      const validated = { ...key, usage: counted.usage, validations: counted.validations, lastValidatedAt: now };
      return {
        ...licenseKeyWire(validated, input.key, customerWire(customer)),
        activation: activation ? activationWire(activation) : null,
      };
    },

    /** Polar's activate: one slot of the key's limit taken atomically, so concurrent activations never pass it. */
    async activate(input: LicenseKeyActivateInput, actor?: MerchantActor): Promise<LicenseKeyActivationReadWire> {
      const now = clock.now();
      return transaction(db, async (trx) => {
        const key = await presented(trx, input.organization_id, input.key, actor);
        if (key.status !== 'granted') throw notPermitted('License key is no longer active.');
        if (key.expiresAt && now.getTime() >= key.expiresAt.getTime()) throw notPermitted('License key has expired.');
        if (!key.limitActivations) throw notPermitted('This license key does not support activations.');
        const repo = licenseKeysRepository(trx);
        if (!(await repo.takeActivationSlot(key.id, now)))
          throw notPermitted('License key activation limit already reached');
        const activation = {
          id: randomUUID(),
          licenseKeyId: key.id,
          label: input.label,
          meta: input.meta ?? {},
          conditions: input.conditions ?? {},
          createdAt: now,
          modifiedAt: null,
        };
        await repo.insertActivation(activation);
        const customer = await customersRepository(trx).findAnyById(key.customerId);
        const current = { ...key, activations: key.activations + 1, modifiedAt: now };
        return {
          ...activationWire(activation),
          license_key: licenseKeyWire(current, input.key, customerWire(customer!)),
        };
      });
    },

    /** Polar's deactivate: the activation deleted and its slot given back; an unknown one is a 404. */
    async deactivate(input: LicenseKeyDeactivateInput, actor?: MerchantActor): Promise<void> {
      const now = clock.now();
      await transaction(db, async (trx) => {
        const key = await presented(trx, input.organization_id, input.key, actor);
        const repo = licenseKeysRepository(trx);
        await repo.lock(key.id);
        if (!(await repo.deleteActivation(key.id, input.activation_id))) throw resourceNotFound();
        await repo.releaseActivationSlot(key.id, now);
      });
    },
  };
}

export type LicenseKeyService = ReturnType<typeof createLicenseKeyService>;
