import { randomUUID } from 'node:crypto';
import type { BenefitStrategy, StrategyContext } from '../benefit-grants/strategies.js';
import { downloadablesRepository } from './repository.js';

interface DownloadablesTerms {
  files: string[];
  archived: Record<string, boolean>;
}

/**
 * Makes the grant's downloadables match its benefit (Polar's downloadables strategy): each listed file is granted,
 * except an archived one the customer does not hold already (archiving stops new holders, not existing ones); a file
 * taken off the benefit is revoked. Granting again re-enables the grant's earlier downloadables in place.
 */
async function reconcile({ trx, grant, benefit, at }: StrategyContext) {
  const terms = benefit.properties as unknown as DownloadablesTerms;
  const repo = downloadablesRepository(trx);
  const existing = new Map((await repo.forGrant(grant.id)).map((row) => [row.fileId, row]));
  const listed = new Set(terms.files);
  const enable: string[] = [];
  const active: string[] = [];
  for (const fileId of terms.files) {
    const held = existing.get(fileId);
    if (held) {
      if (held.revokedAt) enable.push(held.id);
      active.push(fileId);
      continue;
    }
    if (terms.archived[fileId]) continue;
    await repo.insert({
      id: randomUUID(),
      organizationId: grant.organizationId,
      grantId: grant.id,
      customerId: grant.customerId,
      benefitId: grant.benefitId,
      fileId,
      revokedAt: null,
      createdAt: at,
      modifiedAt: null,
    });
    active.push(fileId);
  }
  await repo.setRevoked(enable, null, at);
  const dropped = [...existing.values()].filter((row) => !listed.has(row.fileId) && !row.revokedAt);
  await repo.setRevoked(
    dropped.map((row) => row.id),
    at,
    at,
  );
  return { properties: { files: active } };
}

export const downloadablesStrategy: BenefitStrategy = {
  grant: reconcile,
  update: reconcile,
  async revoke({ trx, grant, at }) {
    const repo = downloadablesRepository(trx);
    const live = (await repo.forGrant(grant.id)).filter((row) => !row.revokedAt);
    await repo.setRevoked(
      live.map((row) => row.id),
      at,
      at,
    );
    return grant.properties;
  },
};
