import type { AuthActor, SessionService } from '../auth/sessions.js';
import type { Clock } from '../kernel/clock.js';
import type { OrganizationsConfig } from '../config/index.js';
import type { Db } from '../database/index.js';
import type { MailService } from '../mail/service.js';
import { transaction, isUniqueViolation } from '../database/index.js';
import type { Changing } from '../cache/changing.js';
import { accessInvalidation, merchantInvalidation } from '../cache/read-cache.js';
import { newAuthId } from '../kernel/ids.js';
import { DomainError } from '../kernel/errors.js';
import { orgError, SLUG_IS_TAKEN } from './errors.js';
import { createInvitationService } from './invitations.js';
import { createMemberService } from './members.js';
import { createTeamService } from './teams.js';
import type { Member, Organization } from './repository.js';
import { membersRepository, organizationsRepository } from './repository.js';
import type { Team } from './teams-repository.js';
import type { CreateOrganizationInput, UpdateOrganizationInput } from './schemas.js';
import { CREATOR_ROLE, roleAllows } from './permissions.js';

export interface OrganizationDeps {
  db: Db;
  clock: Clock;
  config: OrganizationsConfig;
  sessions: SessionService;
  mail: MailService;
  /** Where invitation links point. */
  baseUrl: string;
  /** Organization rows, catalogs and access tokens are cached per daemon; changes here announce the organization. */
  changing: Changing;
  /**
   * What must happen, in the deleting transaction, before an organization goes: the API keys it owns are deleted (not
   * tied by a foreign key: the owner column serves users too), and the meter totals held in memory are written (its
   * meters go by cascade). Both modules sit above organizations, so the core hands this in rather than this module
   * reaching up for them.
   */
  beforeDelete: (trx: Db, organizationId: string) => Promise<unknown>;
}

export type OrganizationService = ReturnType<typeof createOrganizationService>;

export function createOrganizationService(deps: OrganizationDeps) {
  const { db, clock, config, sessions } = deps;

  /** The organization a request is about: the one named, else the session's active one. */
  function targetId(actor: AuthActor, organizationId: string | undefined | null): string | null {
    return organizationId || actor.session.activeOrganizationId;
  }

  async function findByIdOrSlug(query: {
    organizationId?: string | null;
    organizationSlug?: string;
  }): Promise<Organization | null> {
    const repo = organizationsRepository(db);
    if (query.organizationSlug) return repo.findBySlug(query.organizationSlug);
    return query.organizationId ? repo.findById(query.organizationId) : null;
  }

  const teams = createTeamService(deps, targetId);

  return {
    targetId,
    findByIdOrSlug,
    members: createMemberService(deps, targetId),
    invitations: createInvitationService(deps, targetId),
    teams,

    async create(
      actor: AuthActor,
      input: CreateOrganizationInput,
    ): Promise<{ organization: Organization; member: Member; team: Team | null }> {
      if (!config.allowCreate) throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION');
      if (config.limit !== null && (await membersRepository(db).countForUser(actor.user.id)) >= config.limit) {
        throw orgError(403, 'YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS');
      }
      if (await organizationsRepository(db).findBySlug(input.slug)) throw orgError(400, 'ORGANIZATION_ALREADY_EXISTS');
      const now = clock.now();
      const organization: Organization = {
        id: newAuthId(),
        name: input.name,
        slug: input.slug,
        logo: input.logo ?? null,
        metadata: input.metadata === undefined ? null : JSON.stringify(input.metadata),
        createdAt: now,
      };
      const member: Member = {
        id: newAuthId(),
        organizationId: organization.id,
        userId: actor.user.id,
        role: CREATOR_ROLE,
        createdAt: now,
      };
      try {
        const team = await transaction(db, async (trx) => {
          await organizationsRepository(trx).insert(organization);
          await membersRepository(trx).insert(member);
          // With teams on, Better Auth's default team: named after the organization, creator in it, active.
          const created = config.teams
            ? await teams.createDefault(trx, organization.id, organization.name, actor.user.id)
            : null;
          if (!input.keepCurrentActiveOrganization)
            await sessions.setActiveOrganization(actor.session, organization.id, created?.id ?? null, trx);
          return created;
        });
        return { organization, member, team };
      } catch (error) {
        // Two creates with one slug: the unique index decides, and the loser hears what a sequential one would.
        if (isUniqueViolation(error)) throw orgError(400, 'ORGANIZATION_ALREADY_EXISTS');
        throw error;
      }
    },

    async checkSlug(slug: string): Promise<void> {
      // The spec's message for check-slug; Better Auth's client matches on the code, which stays its own.
      if (await organizationsRepository(db).findBySlug(slug))
        throw new DomainError(400, 'ORGANIZATION_SLUG_ALREADY_TAKEN', SLUG_IS_TAKEN);
    },

    async update(actor: AuthActor, input: UpdateOrganizationInput): Promise<Organization> {
      const id = targetId(actor, input.organizationId);
      if (!id) throw orgError(400, 'ORGANIZATION_NOT_FOUND');
      const member = await membersRepository(db).find(id, actor.user.id);
      if (!member) throw orgError(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
      if (!roleAllows(member.role, { organization: ['update'] }))
        throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION');
      const { data } = input;
      if (data.slug !== undefined) {
        const holder = await organizationsRepository(db).findBySlug(data.slug);
        if (holder && holder.id !== id) throw orgError(400, 'ORGANIZATION_SLUG_ALREADY_TAKEN');
      }
      try {
        await deps.changing((trx, announce) => {
          announce([merchantInvalidation(id)]);
          return organizationsRepository(trx).update(id, {
            name: data.name,
            slug: data.slug,
            logo: data.logo,
            metadata: data.metadata === undefined ? undefined : JSON.stringify(data.metadata),
          });
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw orgError(400, 'ORGANIZATION_SLUG_ALREADY_TAKEN');
        throw error;
      }
      const organization = await organizationsRepository(db).findById(id);
      if (!organization) throw orgError(400, 'ORGANIZATION_NOT_FOUND');
      return organization;
    },

    async delete(actor: AuthActor, organizationId: string): Promise<Organization> {
      return deps.changing(async (trx, announce) => {
        announce([merchantInvalidation(organizationId), accessInvalidation(organizationId)]);
        const organization = await organizationsRepository(trx).lock(organizationId);
        const member = await membersRepository(trx).find(organizationId, actor.user.id);
        if (!member) throw orgError(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
        if (!roleAllows(member.role, { organization: ['delete'] }))
          throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION');
        if (!organization) throw orgError(400, 'ORGANIZATION_NOT_FOUND');
        await sessions.clearActiveOrganization(trx, organizationId);
        await deps.beforeDelete(trx, organizationId);
        await organizationsRepository(trx).delete(organizationId);
        return organization;
      });
    },

    list(actor: AuthActor): Promise<Organization[]> {
      return organizationsRepository(db).listForUser(actor.user.id);
    },

    /** null unsets the active organization; a non-member is refused and loses the active organization too. */
    async setActive(
      actor: AuthActor,
      input: { organizationId?: string | null; organizationSlug?: string },
    ): Promise<Organization | null> {
      if (input.organizationId === null && !input.organizationSlug) {
        await sessions.setActiveOrganization(actor.session, null, null);
        return null;
      }
      const id = input.organizationSlug ? null : targetId(actor, input.organizationId);
      if (!input.organizationSlug && !id) return null;
      const organization = await findByIdOrSlug({ organizationId: id, organizationSlug: input.organizationSlug });
      if (!organization) throw orgError(400, 'ORGANIZATION_NOT_FOUND');
      if (!(await membersRepository(db).find(organization.id, actor.user.id))) {
        await sessions.setActiveOrganization(actor.session, null, null);
        throw orgError(403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
      }
      await sessions.setActiveOrganization(actor.session, organization.id, null);
      return organization;
    },

    async hasPermission(
      actor: AuthActor,
      organizationId: string | undefined,
      permissions: Record<string, string[]>,
    ): Promise<boolean> {
      const id = targetId(actor, organizationId);
      if (!id) throw orgError(400, 'NO_ACTIVE_ORGANIZATION');
      const member = await membersRepository(db).find(id, actor.user.id);
      if (!member) throw orgError(401, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
      return roleAllows(member.role, permissions);
    },
  };
}
