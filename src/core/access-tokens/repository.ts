import type { Db } from '../database/index.js';
import { parseJson, toDate, toDateOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';

export interface OrganizationAccessToken {
  id: string;
  organizationId: string;
  comment: string;
  scopes: string[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  modifiedAt: Date | null;
}

function fromRow(row: Record<string, unknown>): OrganizationAccessToken {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    comment: String(row.comment),
    scopes: parseJson<string[]>(row.scopes) ?? [],
    expiresAt: toDateOrNull(row.expires_at),
    lastUsedAt: toDateOrNull(row.last_used_at),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

export function accessTokensRepository(db: Db) {
  return {
    async insert(token: OrganizationAccessToken, tokenHash: string): Promise<void> {
      await db('organization_access_tokens').insert({
        id: token.id,
        organization_id: token.organizationId,
        comment: token.comment,
        token_hash: tokenHash,
        scopes: JSON.stringify(token.scopes),
        expires_at: token.expiresAt,
        last_used_at: null,
        created_at: token.createdAt,
        modified_at: null,
      });
    },
    async findByHash(tokenHash: string): Promise<OrganizationAccessToken | null> {
      const row = await db('organization_access_tokens').where({ token_hash: tokenHash }).first();
      return row ? fromRow(row) : null;
    },
    async findById(id: string): Promise<OrganizationAccessToken | null> {
      const row = await db('organization_access_tokens').where({ id }).first();
      return row ? fromRow(row) : null;
    },
    async list(organizationIds: string[], options: ListOptions) {
      const query = db('organization_access_tokens').whereIn('organization_id', organizationIds);
      const page = await paginate<Record<string, unknown>>(query, options, {
        created_at: 'created_at',
        comment: 'comment',
        last_used_at: 'last_used_at',
      });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },
    async update(id: string, changes: { comment?: string; scopes?: string[]; modifiedAt: Date }): Promise<void> {
      await db('organization_access_tokens')
        .where({ id })
        .update({
          ...(changes.comment !== undefined ? { comment: changes.comment } : {}),
          ...(changes.scopes !== undefined ? { scopes: JSON.stringify(changes.scopes) } : {}),
          modified_at: changes.modifiedAt,
        });
    },
    async touch(id: string, at: Date): Promise<void> {
      await db('organization_access_tokens').where({ id }).update({ last_used_at: at });
    },
    async delete(id: string): Promise<void> {
      await db('organization_access_tokens').where({ id }).delete();
    },
  };
}
