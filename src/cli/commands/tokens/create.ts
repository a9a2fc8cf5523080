import type { z } from 'zod';
import type { organizationAccessTokenCreateResponseSchema } from '../../../core/access-tokens/schemas.js';
import { SCOPES } from '../../../core/polar-api/scopes.js';
import type { Invocation } from '../../action.js';
import { call, createIn, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { info, printJson, printLine } from '../../output.js';

interface Options {
  comment: string;
  scope?: string[];
  scopes?: string;
  expiresIn?: string;
  org?: string;
  json?: boolean;
}

const KNOWN = new Set<string>(SCOPES);

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const scopes = [...(opts.scope ?? []), ...(opts.scopes ?? '').split(',')]
    .map((scope) => scope.trim())
    .filter(Boolean);
  if (scopes.length === 0)
    throw new UsageError('give the token at least one scope: --scope products:read (repeatable) or --scopes a,b');
  const unknown = scopes.filter((scope) => !KNOWN.has(scope));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown scope ${unknown.map((scope) => `"${scope}"`).join(', ')} (scopes look like products:read or products:write)`,
    );
  const body: Record<string, unknown> = { comment: opts.comment, scopes: [...new Set(scopes)] };
  if (opts.expiresIn !== undefined)
    body.expires_in = /^\d+$/.test(opts.expiresIn) ? Number(opts.expiresIn) : opts.expiresIn;
  const target = signedIn(globals);
  await createIn(target, body, opts);
  const created = await call<z.output<typeof organizationAccessTokenCreateResponseSchema>>(
    target,
    'POST',
    '/v1/organization-access-tokens/',
    { body },
  );
  if (opts.json) {
    printJson(created);
    return;
  }
  printLine(created.token);
  const token = created.organization_access_token;
  info(
    `Created access token "${token.comment}" (${token.id}) for organization ${token.organization_id}, ${token.expires_at ? `expiring ${token.expires_at}` : 'without expiry'}.`,
  );
  info('This is the only time it is shown: store it now.');
}
