import { z } from 'zod';

const role = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);
const metadata = z.record(z.string(), z.unknown());

export const createOrganizationBody = z.object({
  name: z.string().min(1),
  slug: z.string().min(1),
  logo: z.string().optional(),
  metadata: metadata.optional(),
  keepCurrentActiveOrganization: z.boolean().optional(),
});

export const checkSlugBody = z.object({ slug: z.string().min(1) });

export const updateOrganizationBody = z.object({
  data: z.object({
    name: z.string().min(1).optional(),
    slug: z.string().min(1).optional(),
    logo: z.string().optional(),
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

export const updateMemberRoleBody = z.object({ memberId: z.string().min(1), role, organizationId: z.string().optional() });

export const removeMemberBody = z.object({ memberIdOrEmail: z.string().min(1), organizationId: z.string().optional() });

const permissions = z.record(z.string(), z.array(z.string()));
export const hasPermissionBody = z
  .object({ permissions: permissions.optional(), permission: permissions.optional(), organizationId: z.string().optional() })
  .refine((body) => body.permissions !== undefined || body.permission !== undefined, { message: 'permissions is required' });

export type CreateOrganizationInput = z.infer<typeof createOrganizationBody>;
export type UpdateOrganizationInput = z.infer<typeof updateOrganizationBody>;

export const inviteMemberBody = z.object({
  email: z.string(),
  role,
  organizationId: z.string().optional(),
  resend: z.boolean().optional(),
  teamId: z.union([z.string(), z.array(z.string())]).optional(),
});

export const invitationIdBody = z.object({ invitationId: z.string().min(1) });
export const getInvitationQuery = z.object({ id: z.string().min(1) });
export const listInvitationsQuery = z.object({ organizationId: z.string().optional() });

export const createTeamBody = z.object({ name: z.string().min(1), organizationId: z.string().optional() });
export const updateTeamBody = z.object({
  teamId: z.string().min(1),
  // Only the name changes; Better Auth's organizationId in data picks the organization.
  data: z.object({ name: z.string().min(1).optional(), organizationId: z.string().optional() }),
});
export const removeTeamBody = z.object({ teamId: z.string().min(1), organizationId: z.string().optional() });
export const setActiveTeamBody = z.object({ teamId: z.string().nullable().optional() });
export const teamQuery = z.object({ organizationId: z.string().optional() });
export const listTeamMembersQuery = z.object({ teamId: z.string().optional() });
export const teamMemberBody = z.object({ teamId: z.string().min(1), userId: z.string().min(1), organizationId: z.string().optional() });
