import { randomUUID } from 'node:crypto';
import { isUuid } from '../benefits/service.js';
import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { isUniqueViolation } from '../database/index.js';
import type { Changing } from '../cache/changing.js';
import { merchantInvalidation } from '../cache/read-cache.js';
import { fieldError, resourceNotFound } from '../polar-api/errors.js';
import type { Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, organizationForCreate } from '../polar-api/actor.js';
import type { CustomField } from './repository.js';
import { customFieldWire, customFieldsRepository } from './repository.js';
import type { CustomFieldCreateBody, CustomFieldListQuery, CustomFieldUpdateBody, CustomFieldWire } from './schemas.js';

function slugTaken(): Error {
  return fieldError(['body', 'slug'], 'Custom field with this slug already exists.');
}

export function createCustomFieldService(deps: { db: Db; clock: Clock; changing: Changing }) {
  const { db, clock } = deps;
  const repo = customFieldsRepository(db);

  async function owned(trx: Db, actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<CustomField> {
    const field = isUuid(id) ? await customFieldsRepository(trx).findById(id) : null;
    if (!field) throw resourceNotFound();
    authorize(actor, field.organizationId, mode);
    return field;
  }

  return {
    async create(actor: MerchantActor, input: CustomFieldCreateBody): Promise<CustomFieldWire> {
      const organizationId = organizationForCreate(actor, input.organization_id);
      const now = clock.now();
      const field: CustomField = {
        id: randomUUID(),
        organizationId,
        type: input.type,
        slug: input.slug,
        name: input.name,
        properties: input.properties,
        metadata: input.metadata ?? {},
        createdAt: now,
        modifiedAt: null,
      };
      // The unique index decides between two concurrent creations of one slug; a pre-check would race.
      try {
        await repo.insert(field);
      } catch (error) {
        if (isUniqueViolation(error)) throw slugTaken();
        throw error;
      }
      return customFieldWire(field);
    },

    async get(actor: MerchantActor, id: string): Promise<CustomFieldWire> {
      return customFieldWire(await owned(db, actor, id, 'read'));
    },

    async list(actor: MerchantActor, query: CustomFieldListQuery): Promise<Page<CustomFieldWire>> {
      const page = await repo.list(
        {
          organizationIds: organizationFilter(actor, query.organization_id),
          types: [...(query.type ?? []), ...(query.type_filter ?? [])],
          query: query.query,
        },
        query,
      );
      return { items: page.items.map(customFieldWire), pagination: page.pagination };
    },

    async update(actor: MerchantActor, id: string, input: CustomFieldUpdateBody): Promise<CustomFieldWire> {
      // Product wires embed their attached custom fields: the organization's cached catalog goes with the change.
      return deps.changing(async (trx, announce) => {
        const field = await owned(trx, actor, id, 'write');
        announce([merchantInvalidation(field.organizationId)]);
        // Answers already collected at checkouts were validated against the type; changing it would orphan them.
        if (input.type !== field.type)
          throw fieldError(['body', 'type'], `The type of a custom field cannot change: this one is ${field.type}.`);
        const changes = {
          ...(input.slug ? { slug: input.slug } : {}),
          ...(input.name ? { name: input.name } : {}),
          ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
          ...(input.properties ? { properties: input.properties } : {}),
          modifiedAt: clock.now(),
        };
        try {
          await customFieldsRepository(trx).update(field.id, changes);
        } catch (error) {
          if (isUniqueViolation(error)) throw slugTaken();
          throw error;
        }
        return customFieldWire({ ...field, ...changes });
      });
    },

    async delete(actor: MerchantActor, id: string): Promise<void> {
      await deps.changing(async (trx, announce) => {
        const field = await owned(trx, actor, id, 'write');
        announce([merchantInvalidation(field.organizationId)]);
        await customFieldsRepository(trx).delete(field.id);
      });
    },
  };
}

export type CustomFieldService = ReturnType<typeof createCustomFieldService>;
