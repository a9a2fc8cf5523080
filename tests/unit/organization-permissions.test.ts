import { describe, expect, it } from 'vitest';
import { hasRole, parseRoles, roleAllows, STATEMENTS, unknownRoles } from '../../src/core/organizations/permissions.js';

// The expected table, written out independently of the implementation (contract §6.2).
const EXPECTED: Record<string, Record<string, string[]>> = {
  owner: {
    organization: ['update', 'delete'],
    member: ['create', 'update', 'delete'],
    invitation: ['create', 'cancel'],
    team: ['create', 'update', 'delete'],
    ac: ['create', 'read', 'update', 'delete'],
  },
  admin: {
    organization: ['update'],
    member: ['create', 'update', 'delete'],
    invitation: ['create', 'cancel'],
    team: ['create', 'update', 'delete'],
    ac: ['create', 'read', 'update', 'delete'],
  },
  member: { ac: ['read'] },
};

describe('organization roles', () => {
  for (const role of ['owner', 'admin', 'member']) {
    for (const [resource, actions] of Object.entries(STATEMENTS)) {
      for (const action of actions) {
        const expected = (EXPECTED[role]![resource] ?? []).includes(action);
        it(`${role} ${expected ? 'may' : 'may not'} ${resource}:${action}`, () => {
          expect(roleAllows(role, { [resource]: [action] })).toBe(expected);
        });
      }
    }
  }

  it('requires every requested action of every requested resource', () => {
    expect(roleAllows('admin', { organization: ['update'], member: ['delete'] })).toBe(true);
    expect(roleAllows('admin', { organization: ['update', 'delete'] })).toBe(false);
    expect(roleAllows('member', { ac: ['read'], member: ['create'] })).toBe(false);
  });

  it('denies unknown resources, actions and roles', () => {
    expect(roleAllows('owner', { billing: ['read'] })).toBe(false);
    expect(roleAllows('owner', { organization: ['archive'] })).toBe(false);
    expect(roleAllows('wizard', { ac: ['read'] })).toBe(false);
    expect(roleAllows('owner', { toString: ['read'] })).toBe(false);
  });

  it('grants when any of several comma-separated roles grants', () => {
    expect(roleAllows('member,admin', { member: ['delete'] })).toBe(true);
    expect(roleAllows('member, owner', { organization: ['delete'] })).toBe(true);
    expect(roleAllows('member,admin', { organization: ['delete'] })).toBe(false);
    expect(parseRoles(' admin , owner ,')).toEqual(['admin', 'owner']);
    expect(hasRole('admin,owner', 'owner')).toBe(true);
    expect(hasRole('admin', 'owner')).toBe(false);
  });

  it('names the roles that do not exist', () => {
    expect(unknownRoles('admin,wizard')).toEqual(['wizard']);
    expect(unknownRoles(['member', 'owner'])).toEqual([]);
    expect(unknownRoles(['member', 'constructor'])).toEqual(['constructor']);
  });
});
