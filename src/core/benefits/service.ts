import { benefitDeleted, benefitPropertiesChanged } from '../grant-triggers/triggers.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import type { Changing } from '../cache/changing.js';
import { merchantInvalidation } from '../cache/read-cache.js';
import { fieldError, notPermitted, resourceNotFound, validationError } from '../polar-api/errors.js';
import type { FieldIssue } from '../polar-api/errors.js';
import { recordEvent } from '../kernel/outbox.js';
import type { Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, organizationForCreate } from '../polar-api/actor.js';
import type { AnyCreateProperties, BenefitType, CreateProperties } from './properties.js';
import { readProperties } from './properties.js';
import type { Benefit } from './repository.js';
import { benefitWire, benefitsRepository } from './repository.js';
import type { BenefitCreateBody, BenefitListQuery, BenefitUpdateBody, BenefitWire } from './schemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids that cannot be a benefit are simply not found (PostgreSQL would reject them as uuids otherwise). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export function createBenefitService(deps: { db: Db; clock: Clock; changing: Changing }) {
  const { db, clock } = deps;

  async function owned(trx: Db, actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<Benefit> {
    const benefit = isUuid(id) ? await benefitsRepository(trx).findById(id) : null;
    if (!benefit) throw resourceNotFound();
    authorize(actor, benefit.organizationId, mode);
    return benefit;
  }

  /**
   * Rules on properties that need the database: downloadables name downloadable files of the same organization,
   * and a meter credit names one of its meters.
   */
  async function checkReferences(
    trx: Db,
    organizationId: string,
    type: BenefitType,
    properties: AnyCreateProperties,
  ): Promise<void> {
    const repo = benefitsRepository(trx);
    const issues: FieldIssue[] = [];
    if (type === 'downloadables') {
      const { files } = properties as CreateProperties<'downloadables'>;
      const known = await repo.downloadableFileIds(organizationId, files);
      files.forEach((file, index) => {
        if (!known.has(file))
          issues.push({
            loc: ['body', 'properties', 'files', index],
            msg: 'File does not exist.',
            type: 'value_error',
            input: file,
          });
      });
    }
    if (type === 'meter_credit') {
      const { meter_id } = properties as CreateProperties<'meter_credit'>;
      if (!(await repo.ownsMeter(organizationId, meter_id)))
        issues.push({
          loc: ['body', 'properties', 'meter_id'],
          msg: 'Meter does not exist.',
          type: 'value_error',
          input: meter_id,
        });
    }
    if (issues.length > 0) throw validationError(issues);
  }

  return {
    async create(actor: MerchantActor, input: BenefitCreateBody): Promise<BenefitWire> {
      const organizationId = organizationForCreate(actor, input.organization_id);
      return transaction(db, async (trx) => {
        await checkReferences(trx, organizationId, input.type, input.properties);
        const now = clock.now();
        const benefit: Benefit = {
          id: randomUUID(),
          organizationId,
          type: input.type,
          description: input.description,
          selectable: true,
          deletable: true,
          visibility: input.visibility ?? 'public',
          metadata: input.metadata ?? {},
          properties: readProperties(input.type, input.properties),
          createdAt: now,
          modifiedAt: null,
          deletedAt: null,
        };
        await benefitsRepository(trx).insert(benefit);
        const wire = benefitWire(benefit);
        await recordEvent(trx, { organizationId, type: 'benefit.created', data: wire, at: now });
        return wire;
      });
    },

    async get(actor: MerchantActor, id: string): Promise<BenefitWire> {
      return benefitWire(await owned(db, actor, id, 'read'));
    },

    async list(actor: MerchantActor, query: BenefitListQuery): Promise<Page<BenefitWire>> {
      const types = [...(query.type ?? []), ...(query.type_filter ?? [])];
      const page = await benefitsRepository(db).list(
        {
          organizationIds: organizationFilter(actor, query.organization_id),
          types,
          ids: query.id,
          excludeIds: query.exclude_id,
          query: query.query,
        },
        query,
      );
      return { items: page.items.map(benefitWire), pagination: page.pagination };
    },

    async update(actor: MerchantActor, id: string, input: BenefitUpdateBody): Promise<BenefitWire> {
      // Product wires embed their benefits: the organization's cached catalog goes with the change.
      return deps.changing(async (trx, announce) => {
        const benefit = await owned(trx, actor, id, 'write');
        announce([merchantInvalidation(benefit.organizationId)]);
        if (input.type !== benefit.type)
          throw fieldError(['body', 'type'], `The type of a benefit cannot change: this one is ${benefit.type}.`);
        if (input.properties) await checkReferences(trx, benefit.organizationId, benefit.type, input.properties);
        const changes = {
          ...(input.description ? { description: input.description } : {}),
          ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
          ...(input.visibility ? { visibility: input.visibility } : {}),
          ...(input.properties ? { properties: readProperties(benefit.type, input.properties) } : {}),
          modifiedAt: clock.now(),
        };
        await benefitsRepository(trx).update(benefit.id, changes);
        if (input.properties) await benefitPropertiesChanged(trx, benefit.id, changes.modifiedAt);
        const wire = benefitWire({ ...benefit, ...changes });
        await recordEvent(trx, {
          organizationId: benefit.organizationId,
          type: 'benefit.updated',
          data: wire,
          at: changes.modifiedAt,
        });
        return wire;
      });
    },

    async delete(actor: MerchantActor, id: string): Promise<void> {
      await deps.changing(async (trx, announce) => {
        const benefit = await owned(trx, actor, id, 'write');
        announce([merchantInvalidation(benefit.organizationId)]);
        if (!benefit.deletable) throw notPermitted('This benefit is not deletable.');
        // Customers of a product that carries the benefit hold (or will hold) grants of it; deleting it under them
        // would revoke what they paid for. The merchant takes it off the products first.
        const products = await benefitsRepository(trx).productCount(benefit.id);
        if (products > 0) {
          throw notPermitted(
            `This benefit is attached to ${products} product${products === 1 ? '' : 's'}; remove it from ${products === 1 ? 'it' : 'them'} first.`,
          );
        }
        const now = clock.now();
        await benefitsRepository(trx).softDelete(benefit.id, now);
        await benefitDeleted(trx, benefit.id, now);
      });
    },
  };
}

export type BenefitService = ReturnType<typeof createBenefitService>;
