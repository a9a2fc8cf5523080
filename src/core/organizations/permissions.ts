import { hasRole, parseRoles } from '../kernel/roles.js';

export { hasRole, parseRoles };

/**
 * Better Auth's default access control for organizations (contract §6.2): the statements and the three built-in
 * roles. Kept as data so has-permission, the routes and the unit tests read the same table.
 */
export const STATEMENTS = {
  organization: ['update', 'delete'],
  member: ['create', 'update', 'delete'],
  invitation: ['create', 'cancel'],
  team: ['create', 'update', 'delete'],
  ac: ['create', 'read', 'update', 'delete'],
} as const;

export type Resource = keyof typeof STATEMENTS;
export type Permissions = Partial<Record<string, string[]>>;

const ALL_AC = ['create', 'read', 'update', 'delete'];

export const ROLES: Record<string, Record<string, readonly string[]>> = {
  owner: {
    organization: ['update', 'delete'],
    member: ['create', 'update', 'delete'],
    invitation: ['create', 'cancel'],
    team: ['create', 'update', 'delete'],
    ac: ALL_AC,
  },
  admin: {
    organization: ['update'],
    member: ['create', 'update', 'delete'],
    invitation: ['create', 'cancel'],
    team: ['create', 'update', 'delete'],
    ac: ALL_AC,
  },
  member: {
    ac: ['read'],
  },
};

/** The role an organization's creator receives, and the one only its holders may grant or take away. */
export const CREATOR_ROLE = 'owner';

export function unknownRoles(role: string | string[]): string[] {
  const roles = Array.isArray(role) ? role.flatMap(parseRoles) : parseRoles(role);
  return roles.filter((name) => !Object.hasOwn(ROLES, name));
}

/**
 * Better Auth's `authorize`: one role grants a request when every requested resource allows every requested
 * action; a member with several roles is granted when any single role grants it. Unknown resources are denied.
 */
export function roleAllows(role: string, permissions: Permissions): boolean {
  const entries = Object.entries(permissions);
  return parseRoles(role).some((name) => {
    const granted = Object.hasOwn(ROLES, name) ? ROLES[name]! : null;
    if (!granted) return false;
    return entries.every(([resource, actions]) => {
      const allowed = Object.hasOwn(granted, resource) ? granted[resource]! : null;
      return allowed !== null && (actions ?? []).every((action) => allowed.includes(action));
    });
  });
}
