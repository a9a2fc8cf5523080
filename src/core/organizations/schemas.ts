import { z } from 'zod';
import { jsonLength, TEXT_LIMITS } from '../kernel/text.js';

// What the organization tables hold (kernel/text.ts): the same refusal on SQLite and PostgreSQL.
const name = z.string().min(1).max(TEXT_LIMITS.name);
const slug = z.string().min(1).max(TEXT_LIMITS.slug);
const logo = z.string().max(TEXT_LIMITS.url);
const roleName = z.string().min(1).max(TEXT_LIMITS.role);
const role = z.union([roleName, z.array(roleName).min(1)]);
const metadata = z.record(z.string(), z.unknown()).refine((value) => jsonLength(value) <= TEXT_LIMITS.json, {
  message: `Too big: expected metadata to have <=${TEXT_LIMITS.json} characters as JSON`,
});

export const createOrganizationBody = z.object({
  name,
  slug,
  logo: logo.optional(),
  metadata: metadata.optional(),
  keepCurrentActiveOrganization: z.boolean().optional(),
});

export const checkSlugBody = z.object({ slug });

export const updateOrganizationBody = z.object({
  data: z.object({
    name: name.optional(),
    slug: slug.optional(),
    logo: logo.optional(),
    metadata: metadata.optional(),
  }),
  organizationId: z.string().optional(),
});

export const organizationIdBody = z.object({ organizationId: z.string().min(1) });

export const setActiveBody = z.object({
  organizationId: z.string().nullable().optional(),
  organizationSlug: z.string().optional(),
});

export const getFullOrganizationQuery = z.object({
  organizationId: z.string().optional(),
  organizationSlug: z.string().optional(),
  membersLimit: z.coerce.number().int().positive().optional(),
});

export const getOrganizationQuery = z.object({
  organizationId: z.string().optional(),
  organizationSlug: z.string().optional(),
});

export const activeMemberRoleQuery = z.object({
  userId: z.string().optional(),
  organizationId: z.string().optional(),
  organizationSlug: z.string().optional(),
});

export const listMembersQuery = z.object({
  organizationId: z.string().optional(),
  organizationSlug: z.string().optional(),
  limit: z.coerce.number().int().positive().optional(),
  offset: z.coerce.number().int().nonnegative().optional(),
});

export const updateMemberRoleBody = z.object({
  memberId: z.string().min(1),
  role,
  organizationId: z.string().optional(),
});

export const removeMemberBody = z.object({ memberIdOrEmail: z.string().min(1), organizationId: z.string().optional() });

const permissions = z.record(z.string(), z.array(z.string()));
export const hasPermissionBody = z
  .object({
    permissions: permissions.optional(),
    permission: permissions.optional(),
    organizationId: z.string().optional(),
  })
  .refine((body) => body.permissions !== undefined || body.permission !== undefined, {
    message: 'permissions is required',
  });

export type CreateOrganizationInput = z.infer<typeof createOrganizationBody>;
export type UpdateOrganizationInput = z.infer<typeof updateOrganizationBody>;

export const inviteMemberBody = z.object({
  email: z.string().max(TEXT_LIMITS.email),
  role,
  organizationId: z.string().optional(),
  resend: z.boolean().optional(),
  teamId: z.union([z.string(), z.array(z.string())]).optional(),
});

export const invitationIdBody = z.object({ invitationId: z.string().min(1) });
export const getInvitationQuery = z.object({ id: z.string().min(1) });
export const listInvitationsQuery = z.object({ organizationId: z.string().optional() });

export const createTeamBody = z.object({ name, organizationId: z.string().optional() });
export const updateTeamBody = z.object({
  teamId: z.string().min(1),
  // Only the name changes; Better Auth's organizationId in data picks the organization.
  data: z.object({ name: name.optional(), organizationId: z.string().optional() }),
});
export const removeTeamBody = z.object({ teamId: z.string().min(1), organizationId: z.string().optional() });
export const setActiveTeamBody = z.object({ teamId: z.string().nullable().optional() });
export const teamQuery = z.object({ organizationId: z.string().optional() });
export const listTeamMembersQuery = z.object({ teamId: z.string().optional() });
export const teamMemberBody = z.object({
  teamId: z.string().min(1),
  userId: z.string().min(1),
  organizationId: z.string().optional(),
});

// What the organization routes answer (the shapes organizations/wire.ts builds), so readers such as the CLI derive
// their types from one place instead of writing them out again.
export const organizationWire = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  logo: z.string().nullable(),
  createdAt: z.string(),
  metadata: z.unknown(),
});
export type OrganizationWire = z.output<typeof organizationWire>;

export const memberWire = z.object({
  id: z.string(),
  organizationId: z.string(),
  userId: z.string(),
  role: z.string(),
  createdAt: z.string(),
});
export type MemberWire = z.output<typeof memberWire>;

export const memberWithUserWire = memberWire.extend({
  user: z.object({ id: z.string(), name: z.string(), email: z.string(), image: z.string().nullable() }),
});
export type MemberWithUserWire = z.output<typeof memberWithUserWire>;

export const invitationWire = z.object({
  id: z.string(),
  organizationId: z.string(),
  email: z.string(),
  role: z.string().nullable(),
  teamId: z.string().nullable(),
  status: z.string(),
  expiresAt: z.string(),
  createdAt: z.string(),
  inviterId: z.string(),
});
export type InvitationWire = z.output<typeof invitationWire>;

export const fullOrganizationWire = organizationWire.extend({
  members: z.array(memberWithUserWire),
  invitations: z.array(invitationWire),
});
export type FullOrganizationWire = z.output<typeof fullOrganizationWire>;

export const teamWire = z.object({
  id: z.string(),
  name: z.string(),
  organizationId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string().nullable(),
});
export type TeamWire = z.output<typeof teamWire>;
