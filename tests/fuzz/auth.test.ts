import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAuthCookies } from '../../src/daemon/auth/cookies.js';
import { createSessionAuth } from '../../src/daemon/auth/session-auth.js';
import { createTrustedOrigins } from '../../src/daemon/auth/trusted-origins.js';
import { AUTH_BASE_PATH, authRouteTable } from '../../src/daemon/routes/auth/index.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import type { TestClient } from '../helpers/http.js';
import { createOrganization, signedInUser } from '../helpers/organizations.js';
import {
  fieldPaths,
  HOSTILE_BODIES,
  HOSTILE_CREDENTIALS,
  HOSTILE_URL_VALUES,
  HOSTILE_VALUES,
  plausible,
  resolver,
  runAll,
  sample,
  Tally,
  withDuplicateKeys,
  withValueAt,
  type FuzzAnswer,
  type FuzzRequest,
  type JsonSchema,
} from './generators.js';

// Every route of the /api/auth table (as the router declares them), every query and body field, sent hostile
// values signed in and not. No answer may be a 5xx; errors are Better Auth's {message, code}; redirects stay home.

const FIELD_SAMPLES = 3;
const QUERY_SAMPLES = 3;
const PATH_SAMPLES = 4;
const BODY_SAMPLES = 6;
const CREDENTIAL_SAMPLES = 2;
/** Routes that end or change the caller's session or membership: each gets a signed-in user of its own, last. */
const DESTRUCTIVE =
  /sign-out|revoke|delete-user|change-password|change-email|unlink-account|organization\/(delete|leave|remove-member|update-member-role)/;

const tally = new Tally();
let daemon: TestDaemon | undefined;
const ids: Record<string, string> = {};
let mainCookie = '';

beforeAll(async () => {
  daemon = await startTestDaemon({
    rateLimit: false,
    organizations: {
      allowCreate: true,
      limit: null,
      teams: true,
      allowRemovingAllTeams: false,
      requireEmailVerificationOnInvitation: false,
      maximumMembersPerTeam: null,
      membershipLimit: 100,
    },
  });
  const owner = await signedInUser(daemon, 'Fuzz Owner');
  const organization = await createOrganization(owner.client, { name: 'Fuzz Org' });
  const team = await created(owner.client, '/organization/create-team', {
    name: 'Fuzz team',
    organizationId: organization.id,
  });
  const invitation = await created(owner.client, '/organization/invite-member', {
    email: 'invitee@example.com',
    role: 'member',
    organizationId: organization.id,
  });
  const key = await created(owner.client, '/api-key/create', { name: 'fuzz key' });
  const accounts = await owner.client.get(`${AUTH_BASE_PATH}/list-accounts`);
  Object.assign(ids, {
    organizationId: organization.id,
    organizationSlug: organization.slug,
    slug: organization.slug,
    teamId: team.id,
    invitationId: invitation.id,
    id: invitation.id,
    memberId: organization.members[0]!.id,
    memberIdOrEmail: organization.members[0]!.id,
    userId: owner.user.id,
    keyId: key.id,
    accountId: accounts.json[0].accountId,
    providerId: 'credential',
    provider: 'google',
    password: owner.password,
    currentPassword: owner.password,
    newPassword: 'another fine password',
    token: owner.token,
  });
  mainCookie = owner.client.cookieHeader();
});

afterAll(async () => {
  console.log(tally.summary('fuzz /api/auth'));
  await daemon?.stop();
});

async function created(client: TestClient, path: string, body: Record<string, unknown>): Promise<any> {
  const response = await client.post(`${AUTH_BASE_PATH}${path}`, body);
  if (response.status !== 200) throw new Error(`seeding ${path} failed: ${response.status} ${response.text}`);
  return response.json;
}

function jsonSchemaOf(schema: z.ZodType | undefined): { schema: JsonSchema; defs: Record<string, JsonSchema> } | null {
  if (!schema) return null;
  const generated = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema & {
    $defs?: Record<string, JsonSchema>;
  };
  return { schema: generated, defs: generated.$defs ?? {} };
}

type Route = ReturnType<typeof authRouteTable>[number];

function requestsFor(route: Route, path: string, cookie: string): FuzzRequest[] {
  const verb = route.method.toUpperCase();
  const name = `${verb} ${path}`;
  const origin = daemon!.url;
  const credentials = { 'signed in': { origin, cookie }, anonymous: { origin } };
  const json = (headers: Record<string, string>) => ({ ...headers, 'content-type': 'application/json' });
  const pathWith = (value: string) => AUTH_BASE_PATH + path.replace(/:[a-z]+/gi, value);
  const real = pathWith(path.startsWith('/callback') ? 'google' : 'fuzz-token');
  const body = jsonSchemaOf(route.body);
  const query = jsonSchemaOf(route.query);
  const base = body ? plausible(body.schema, resolver(body.defs), (field) => ids[field]) : undefined;
  const baseText = verb === 'POST' ? JSON.stringify(base ?? {}) : undefined;
  const requests: FuzzRequest[] = [];
  const withBody = (headers: Record<string, string>) => (baseText === undefined ? headers : json(headers));

  for (const [who, headers] of Object.entries(credentials))
    requests.push({
      label: `${name} (${who}, plausible)`,
      method: verb,
      path: real,
      headers: withBody(headers),
      body: baseText,
    });
  for (const headers of sample(HOSTILE_CREDENTIALS, CREDENTIAL_SAMPLES, `${name} credentials`)) {
    requests.push({
      label: `${name} credentials ${JSON.stringify(headers).slice(0, 60)}`,
      method: verb,
      path: real,
      headers: withBody({ origin, ...headers }),
      body: baseText,
    });
  }
  if (path.includes(':')) {
    for (const value of sample(HOSTILE_URL_VALUES, PATH_SAMPLES, `${name} path`))
      requests.push({
        label: `${name} path ${value.slice(0, 40)}`,
        method: verb,
        path: pathWith(value),
        headers: withBody(credentials['signed in']),
        body: baseText,
      });
  }
  // callbackURL is judged on every route, whatever its schema says.
  const queryFields = [
    ...Object.keys(query?.schema.properties ?? {}),
    ...(query?.schema.properties?.callbackURL ? [] : ['callbackURL']),
  ];
  for (const field of queryFields) {
    sample(HOSTILE_URL_VALUES, QUERY_SAMPLES, `${name} query ${field}`).forEach((value, index) => {
      const who = index === 0 ? 'anonymous' : 'signed in';
      requests.push({
        label: `${name} (${who}) query ${field}=${value.slice(0, 40)}`,
        method: verb,
        path: `${real}?${field}=${value}`,
        headers: withBody(credentials[who]),
        body: baseText,
      });
    });
  }
  if (verb !== 'POST') return requests;

  if (body) {
    for (const field of fieldPaths(body.schema, resolver(body.defs))) {
      sample(HOSTILE_VALUES, FIELD_SAMPLES, `${name} body ${field.join('.')}`).forEach((value, index) => {
        const who = index === 0 ? 'anonymous' : 'signed in';
        requests.push({
          label: `${name} (${who}) body.${field.join('.')} = ${value.label}`,
          method: verb,
          path: real,
          headers: json(credentials[who]),
          body: withValueAt(base, field, value.json),
        });
      });
    }
    const [duplicate] = sample(HOSTILE_VALUES, 1, `${name} duplicate keys`);
    requests.push({
      label: `${name} duplicate keys (${duplicate!.label} first)`,
      method: verb,
      path: real,
      headers: json(credentials['signed in']),
      body: withDuplicateKeys((base ?? {}) as Record<string, unknown>, duplicate!.json),
    });
  }
  sample(HOSTILE_BODIES, BODY_SAMPLES, `${name} bodies`).forEach((raw, index) => {
    const headers: Record<string, string> = { ...credentials[index % 2 === 0 ? 'signed in' : 'anonymous'] };
    if (raw.contentType) headers['content-type'] = raw.contentType;
    requests.push({ label: `${name} body: ${raw.label}`, method: verb, path: real, headers, body: raw.body });
  });
  // Form bodies where Better Auth takes them: every field NUL, then every field a megabyte.
  if (path === '/sign-in/email' || path === '/sign-up/email') {
    const fields = Object.keys(body?.schema.properties ?? {});
    for (const value of ['a%00b', 'x'.repeat(1_000_000), '%ED%A0%80'])
      requests.push({
        label: `${name} form body ${value.slice(0, 10)}`,
        method: verb,
        path: real,
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: fields.map((field) => `${field}=${value}`).join('&'),
      });
  }
  // A POST from a foreign origin, and one with no origin at all.
  requests.push({
    label: `${name} foreign origin`,
    method: verb,
    path: real,
    headers: json({ origin: 'https://evil.example', cookie }),
    body: baseText,
  });
  requests.push({ label: `${name} no origin`, method: verb, path: real, headers: json({ cookie }), body: baseText });
  return requests;
}

/** Better Auth's error shape for a JSON 4xx, and redirects only to this daemon (relative or on its origin). */
function checkAuth(fuzz: FuzzRequest, answer: FuzzAnswer): string | null {
  if (answer.status >= 500) return 'server error';
  if (answer.status >= 300 && answer.status < 400) {
    const location = String(answer.headers.location ?? '');
    const home = location.startsWith(daemon!.url + '/') || /^\/(?![/\\])/.test(location);
    return home ? null : `redirect off this daemon: ${location.slice(0, 100)}`;
  }
  if (answer.status < 400 || answer.json === undefined) return null;
  const body = answer.json as { message?: unknown; code?: unknown } | null;
  if (typeof body?.message !== 'string') return 'JSON 4xx without a message';
  if (body.code !== undefined && typeof body.code !== 'string') return 'code is not a string';
  return null;
}

describe('fuzzing the /api/auth route table', () => {
  it('answers every hostile request below 500, in Better Auth’s error shape', async () => {
    const core = daemon!.core;
    const cookies = createAuthCookies(core.config);
    const table = authRouteTable({
      core,
      cookies,
      sessionAuth: createSessionAuth(core, cookies),
      trusted: createTrustedOrigins(core.config.baseUrl, core.config.trustedOrigins),
    });
    expect(table.length).toBeGreaterThan(60);
    const safe: FuzzRequest[] = [];
    const destructive: Array<[Route, string]> = [];
    for (const route of table) {
      for (const path of typeof route.path === 'string' ? [route.path] : route.path) {
        if (DESTRUCTIVE.test(path)) destructive.push([route, path]);
        else safe.push(...requestsFor(route, path, mainCookie));
      }
    }
    await runAll(daemon!.url, safe, tally, checkAuth);
    let sent = safe.length;
    for (const [route, path] of destructive) {
      const own = await signedInUser(daemon!, 'Fuzz Target');
      const requests = requestsFor(route, path, own.client.cookieHeader());
      await runAll(daemon!.url, requests, tally, checkAuth);
      sent += requests.length;
    }
    expect(tally.failures).toEqual([]);
    expect(tally.total).toBe(sent);
  }, 300_000);
});
