/**
 * Reading a member's role column, shared by organizations (Better Auth's access control) and the /v1 layer (billing
 * roles), which sits below organizations and so cannot ask them.
 */

/** A member's role column may hold several roles separated by commas. */
export function parseRoles(role: string): string[] {
  return role
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

export function hasRole(role: string, name: string): boolean {
  return parseRoles(role).includes(name);
}
