import type Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import { authError } from '../../../core/auth/errors.js';
import { DomainError } from '../../../core/kernel/errors.js';
import type { SessionAuth } from '../../auth/session-auth.js';
import type { AuthRouteDeps } from './deps.js';
import { refuseNul, validateInput } from './validation.js';

type Schema = z.ZodType;

/**
 * Who may call a route. `optional` hands the handler the session or null and leaves the decision to it (the core
 * answers some routes' missing session in its own words); `fresh-session` also refuses a session older than the
 * freshness window, with Better Auth's 403 SESSION_NOT_FRESH.
 */
export type Caller = 'public' | 'optional' | 'session' | 'fresh-session';

/**
 * How a `session` route answers a request without one. Better Auth's routes do not agree: most throw 401
 * UNAUTHORIZED, the organization plugin's get-invitation says "Not authenticated" without a code, the account
 * token routes answer a bare 401, and organization/create a 401 with an empty text body.
 */
export type SignedOutAnswer = 'unauthorized' | 'not-authenticated' | 'bare-401' | 'empty-401';

export type OptionalActor = Awaited<ReturnType<SessionAuth['optionalActor']>>;
export type SessionActor = NonNullable<OptionalActor>;

type ActorOf<C extends Caller> = C extends 'public' ? undefined : C extends 'optional' ? OptionalActor : SessionActor;

export interface AuthRouteSpec<C extends Caller, Q extends Schema, B extends Schema> {
  method: 'get' | 'post';
  /** Below /api/auth; several paths when Better Auth kept an old name as an alias. */
  path: string | readonly string[];
  caller: C;
  query?: Q;
  body?: B;
  signedOut?: SignedOutAnswer;
  /** Resolve the session before validating the input, where Better Auth checks it first (organization/create). */
  sessionBeforeInput?: boolean;
  /** Runs before anything else: a route that is switched off, or a check Better Auth makes before validation. */
  precondition?: (ctx: Context, rawBody: unknown) => void;
}

export interface AuthRouteInput<C extends Caller, Q extends Schema, B extends Schema> {
  ctx: Context;
  query: z.output<Q>;
  body: z.output<B>;
  actor: ActorOf<C>;
}

/** Better Auth answers "nothing there" with a literal JSON `null` and status 200. */
export function respondNull(ctx: Context): void {
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = 'null';
}

/**
 * The /api/auth routes, declared the way /v1's operations are: each definition names its method, path, input
 * schemas and caller, and registration derives validation (Better Auth's VALIDATION_ERROR) and the signed-out
 * answers from it. The order is fixed: precondition, body, query, then the session, unless the route says otherwise;
 * NUL anywhere in the input is refused with the validation, on every route, schema or not.
 * Handlers return the JSON body; one that sets ctx itself (a redirect, a literal null) returns undefined.
 */
export class AuthApi {
  readonly routes: Array<AuthRouteSpec<Caller, Schema, Schema>> = [];

  constructor(
    private readonly router: Router,
    readonly deps: AuthRouteDeps,
  ) {}

  route<C extends Caller, Q extends Schema = Schema, B extends Schema = Schema>(
    spec: AuthRouteSpec<C, Q, B>,
    handler: (input: AuthRouteInput<C, Q, B>) => unknown,
  ): void {
    this.routes.push(spec as unknown as AuthRouteSpec<Caller, Schema, Schema>);
    const { sessionAuth, core } = this.deps;
    const readsSession = spec.caller !== 'public';
    const mustHaveSession = spec.caller === 'session' || spec.caller === 'fresh-session';
    const signedOut = spec.signedOut ?? 'unauthorized';

    /** The caller (null: none, for `optional`), or false once the signed-out answer has been given. */
    const resolveCaller = async (ctx: Context): Promise<OptionalActor | false> => {
      const actor = await sessionAuth.optionalActor(ctx);
      if (!mustHaveSession) return actor;
      if (!actor) {
        answerSignedOut(ctx, signedOut);
        return false;
      }
      if (spec.caller === 'fresh-session' && !core.sessions.isFresh(actor.session))
        throw authError(403, 'SESSION_NOT_FRESH');
      return actor;
    };

    const middleware = async (ctx: Context): Promise<void> => {
      const raw: unknown = ctx.state.body;
      spec.precondition?.(ctx, raw);
      let actor: OptionalActor | false = null;
      if (readsSession && spec.sessionBeforeInput) {
        actor = await resolveCaller(ctx);
        if (actor === false) return;
      }
      refuseNul({ path: ctx.params, body: raw, query: ctx.query });
      const body = spec.body ? validateInput(spec.body, raw, 'body') : undefined;
      const query = spec.query ? validateInput(spec.query, ctx.query, 'query') : undefined;
      if (readsSession && !spec.sessionBeforeInput) {
        actor = await resolveCaller(ctx);
        if (actor === false) return;
      }
      const input = { ctx, query, body, actor: readsSession ? actor : undefined };
      const result = await handler(input as AuthRouteInput<C, Q, B>);
      if (result !== undefined) ctx.body = result;
    };
    for (const path of typeof spec.path === 'string' ? [spec.path] : spec.path)
      this.router[spec.method](path, middleware);
  }
}

function answerSignedOut(ctx: Context, answer: SignedOutAnswer): void {
  switch (answer) {
    case 'unauthorized':
      throw authError(401, 'UNAUTHORIZED');
    case 'not-authenticated':
      throw new DomainError(401, undefined, 'Not authenticated');
    case 'bare-401':
      ctx.body = null;
      ctx.status = 401;
      return;
    case 'empty-401':
      ctx.status = 401;
      ctx.body = '';
      return;
  }
}
