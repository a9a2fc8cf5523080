import type { Db } from '../database/index.js';
import { idIn } from './bulk.js';
import { parseJson, toBool, toDate, toDateOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';

export interface EndpointRecord {
  id: string;
  organizationId: string;
  url: string;
  name: string | null;
  format: 'raw' | 'discord' | 'slack';
  events: string[];
  enabled: boolean;
  /** Deliveries in flight at once (Till's extension); null: DEFAULT_MAX_CONCURRENCY. */
  maxConcurrency: number | null;
  /** Sealed (secret box); opened only by the service. */
  sealedSecret: string;
  sealedPreviousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  modifiedAt: Date | null;
}

function fromRow(row: Record<string, unknown>): EndpointRecord {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    url: String(row.url),
    name: (row.name as string | null) ?? null,
    format: String(row.format) as EndpointRecord['format'],
    events: parseJson<string[]>(row.events) ?? [],
    enabled: toBool(row.enabled),
    maxConcurrency:
      row.max_concurrency === null || row.max_concurrency === undefined ? null : Number(row.max_concurrency),
    sealedSecret: String(row.secret),
    sealedPreviousSecret: (row.previous_secret as string | null) ?? null,
    previousSecretExpiresAt: toDateOrNull(row.previous_secret_expires_at),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

export function endpointsRepository(db: Db) {
  return {
    async insert(endpoint: EndpointRecord): Promise<void> {
      await db('webhook_endpoints').insert({
        id: endpoint.id,
        organization_id: endpoint.organizationId,
        url: endpoint.url,
        name: endpoint.name,
        format: endpoint.format,
        events: JSON.stringify(endpoint.events),
        enabled: endpoint.enabled,
        max_concurrency: endpoint.maxConcurrency,
        secret: endpoint.sealedSecret,
        previous_secret: endpoint.sealedPreviousSecret,
        previous_secret_expires_at: endpoint.previousSecretExpiresAt,
        created_at: endpoint.createdAt,
        modified_at: endpoint.modifiedAt,
      });
    },

    async findById(id: string): Promise<EndpointRecord | null> {
      const row = await db('webhook_endpoints').where({ id }).first();
      return row ? fromRow(row) : null;
    },

    async findByIds(ids: string[]): Promise<EndpointRecord[]> {
      if (ids.length === 0) return [];
      const list = idIn(db, 'id', ids);
      return (await db('webhook_endpoints').whereRaw(list.sql, [list.binding])).map(fromRow);
    },

    /** Enabled endpoints of these organizations: the dispatcher's fan-out targets. */
    async enabledFor(organizationIds: string[]): Promise<EndpointRecord[]> {
      if (organizationIds.length === 0) return [];
      return (await db('webhook_endpoints').whereIn('organization_id', organizationIds).where({ enabled: true })).map(
        fromRow,
      );
    },

    async list(organizationIds: string[], options: ListOptions) {
      const query = db('webhook_endpoints').whereIn('organization_id', organizationIds);
      const page = await paginate<Record<string, unknown>>(query, options, { created_at: 'created_at' });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },

    async update(
      id: string,
      changes: Partial<
        Pick<
          EndpointRecord,
          | 'url'
          | 'name'
          | 'format'
          | 'events'
          | 'enabled'
          | 'maxConcurrency'
          | 'sealedSecret'
          | 'sealedPreviousSecret'
          | 'previousSecretExpiresAt'
        >
      > & { modifiedAt: Date },
    ): Promise<void> {
      const row: Record<string, unknown> = { modified_at: changes.modifiedAt };
      if (changes.url !== undefined) row.url = changes.url;
      if (changes.name !== undefined) row.name = changes.name;
      if (changes.format !== undefined) row.format = changes.format;
      if (changes.events !== undefined) row.events = JSON.stringify(changes.events);
      if (changes.enabled !== undefined) row.enabled = changes.enabled;
      if (changes.maxConcurrency !== undefined) row.max_concurrency = changes.maxConcurrency;
      if (changes.sealedSecret !== undefined) row.secret = changes.sealedSecret;
      if (changes.sealedPreviousSecret !== undefined) row.previous_secret = changes.sealedPreviousSecret;
      if (changes.previousSecretExpiresAt !== undefined)
        row.previous_secret_expires_at = changes.previousSecretExpiresAt;
      await db('webhook_endpoints').where({ id }).update(row);
    },

    /** Turns an endpoint off once; answers whether this call did it (so only one caller sends the notice). */
    async disable(id: string, at: Date): Promise<boolean> {
      const changed = await db('webhook_endpoints')
        .where({ id, enabled: true })
        .update({ enabled: false, modified_at: at });
      return Number(changed) > 0;
    },

    async delete(id: string): Promise<void> {
      await db('webhook_endpoints').where({ id }).delete();
    },
  };
}
