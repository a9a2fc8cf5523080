import Router from '@koa/router';
import type { Context } from 'koa';
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { resourceNotFound, validationError } from '../../../core/polar-api/errors.js';
import type { FieldIssue } from '../../../core/polar-api/errors.js';
import { DomainError } from '../../../core/kernel/errors.js';
import type { IdempotencyStore } from '../../../core/polar-api/idempotency.js';
import type { MerchantActor } from '../../../core/polar-api/actor.js';
import { hasAnyScope, principalOf } from '../../../core/polar-api/actor.js';
import type { Scope } from '../../../core/polar-api/scopes.js';
import { idParams, isUuid } from '../../../core/polar-api/schemas.js';
import { nulPath } from '../../../core/kernel/text.js';
import { readV1Body } from './body.js';

type Method = 'get' | 'post' | 'patch' | 'delete';
type Schema = z.ZodType;

/**
 * One /v1 operation: its route, its input and output schemas, and who may call it. The same definition registers the
 * Koa route (which validates with the schemas) and feeds the OpenAPI document, so the two cannot drift apart.
 */
export interface OperationSpec<P extends Schema, Q extends Schema, B extends Schema> {
  method: Method;
  /** Koa path, e.g. `/v1/products/:id`. Polar's collection paths end in `/`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  /** Any one suffices (Polar's rule). Omitted: a public route without authentication. */
  scopes?: readonly Scope[];
  params?: P;
  query?: Q;
  body?: B;
  /**
   * A hand-written check of the body for the common case (a hot route): the body, as `body` would output it, when
   * valid; null sends it to `body`, which names the errors.
   */
  fastBody?: (raw: unknown) => z.output<B> | null;
  response?: Schema;
  /** 200 unless given; 201 for creations, 204 for deletions. */
  status?: number;
  /** Where the answer is not JSON (file downloads, redirects): documented by hand. */
  responseDescription?: string;
}

export interface OperationInput<P extends Schema, Q extends Schema, B extends Schema> {
  ctx: Context;
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
}

export interface AuthedInput<P extends Schema, Q extends Schema, B extends Schema> extends OperationInput<P, Q, B> {
  actor: MerchantActor;
}

export interface V1Deps {
  authenticate(ctx: Context): Promise<MerchantActor>;
  idempotency: IdempotencyStore;
}

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_IDEMPOTENCY_KEY = 255;

/** Turns zod issues into FastAPI's `detail` entries: `loc` starts with path, query or body. */
export function toFieldIssues(where: 'path' | 'query' | 'body', error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => {
    const loc: Array<string | number> = [
      where,
      ...issue.path.map((part) => (typeof part === 'number' ? part : String(part))),
    ];
    if (issue.code === 'unrecognized_keys') {
      return {
        loc: [...loc, issue.keys[0] ?? ''],
        msg: `Extra inputs are not permitted: ${issue.keys.join(', ')}`,
        type: 'extra_forbidden',
      };
    }
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    return {
      loc,
      msg: missing ? 'Field required' : issue.message,
      type: missing ? 'missing' : pydanticType(issue.code),
    };
  });
}

function pydanticType(code: string): string {
  switch (code) {
    case 'invalid_type':
      return 'type_error';
    case 'too_big':
      return 'too_long';
    case 'too_small':
      return 'too_short';
    case 'invalid_value':
    case 'invalid_union':
      return 'enum';
    default:
      return 'value_error';
  }
}

function refuseNul(where: 'query' | 'body', value: unknown): void {
  const found = nulPath(value);
  if (found)
    throw validationError([
      { loc: [where, ...found], msg: 'String should not contain NUL characters', type: 'string_type' },
    ]);
}

function parse<S extends Schema>(schema: S | undefined, input: unknown, where: 'path' | 'query' | 'body'): z.output<S> {
  if (!schema) return undefined as z.output<S>;
  // reportInput: FastAPI says "Field required" only when the value is absent, so the issue needs the input.
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw validationError(toFieldIssues(where, result.error));
  return result.data as z.output<S>;
}

export class V1Api {
  readonly router = new Router();
  readonly operations: Array<OperationSpec<Schema, Schema, Schema>> = [];

  constructor(private readonly deps: V1Deps) {}

  /** An operation for authenticated merchants (organization tokens, members' sessions and API keys). */
  op<P extends Schema, Q extends Schema, B extends Schema>(
    spec: OperationSpec<P, Q, B> & { scopes: readonly Scope[] },
    handler: (input: AuthedInput<P, Q, B>) => Promise<unknown>,
  ): void {
    this.register(spec, async (input) => {
      const actor = await this.deps.authenticate(input.ctx);
      if (!hasAnyScope(actor, spec.scopes)) {
        throw new DomainError(
          403,
          'NotPermitted',
          `The token lacks the scope this operation needs: one of ${spec.scopes.join(', ')}.`,
        );
      }
      return this.idempotent(input.ctx, actor, spec.status ?? 200, () => handler({ ...input, actor }));
    });
  }

  /** An operation without authentication (checkout client routes, public redirects). */
  publicOp<P extends Schema, Q extends Schema, B extends Schema>(
    spec: OperationSpec<P, Q, B>,
    handler: (input: OperationInput<P, Q, B>) => Promise<unknown>,
  ): void {
    this.register(spec, handler);
  }

  private register<P extends Schema, Q extends Schema, B extends Schema>(
    spec: OperationSpec<P, Q, B>,
    handler: (input: OperationInput<P, Q, B>) => Promise<unknown>,
  ): void {
    this.operations.push(spec as unknown as OperationSpec<Schema, Schema, Schema>);
    this.router[spec.method](spec.path, async (ctx) => {
      if (nulPath(ctx.params)) throw resourceNotFound();
      refuseNul('query', ctx.query);
      const params = parse(spec.params, ctx.params, 'path');
      if (spec.params === (idParams as unknown) && !isUuid((params as { id: string }).id)) throw resourceNotFound();
      const query = parse(spec.query, ctx.query, 'query');
      const raw = spec.body ? await readV1Body(ctx, MAX_BODY_BYTES) : undefined;
      refuseNul('body', raw);
      const body = spec.fastBody?.(raw) ?? parse(spec.body, raw, 'body');
      // Handlers return the body; a handler that set ctx.body itself (a file, a redirect) returns undefined.
      const result = await handler({ ctx, params, query, body });
      if (result === undefined) {
        if (ctx.body === undefined && spec.status === 204) ctx.status = 204;
        return;
      }
      ctx.status = spec.status ?? 200;
      ctx.body = result;
    });
  }

  /**
   * Idempotency-Key on a POST: the first request with a key runs, later ones with the same body replay its answer,
   * with another body get 422. Validation errors ran before we get here, so they never consume a key; a request that
   * fails with a 422 or a server error releases it too.
   */
  private async idempotent(
    ctx: Context,
    actor: MerchantActor,
    status: number,
    run: () => Promise<unknown>,
  ): Promise<unknown> {
    const key = ctx.get('idempotency-key');
    if (ctx.method !== 'POST' || !key) return run();
    if (key.length > MAX_IDEMPOTENCY_KEY) {
      throw validationError([
        {
          loc: ['header', 'idempotency-key'],
          msg: `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY} characters`,
          type: 'too_long',
        },
      ]);
    }
    const principal = principalOf(actor);
    const hash = createHash('sha256')
      .update(JSON.stringify(ctx.request.rawBodyForIdempotency ?? null))
      .digest('hex');
    const claim = await this.deps.idempotency.claim(principal, key, { method: ctx.method, path: ctx.path, hash });
    if (claim.kind === 'mismatch') {
      throw validationError([
        {
          loc: ['header', 'idempotency-key'],
          msg: 'This Idempotency-Key was already used with a different request; use a new key for a new request.',
          type: 'idempotency_key_reused',
        },
      ]);
    }
    if (claim.kind === 'unreadable') {
      throw validationError([
        {
          loc: ['header', 'idempotency-key'],
          msg: 'The answer stored for this Idempotency-Key can no longer be read (the server secret changed); check whether the first request took effect before using a new key.',
          type: 'idempotency_key_unreadable',
        },
      ]);
    }
    if (claim.kind === 'in_progress') {
      throw new DomainError(
        409,
        'IdempotencyKeyInUse',
        'A request with this Idempotency-Key is still being processed; retry shortly.',
      );
    }
    if (claim.kind === 'replay') {
      ctx.set('Idempotent-Replayed', 'true');
      if (claim.status === 204 || claim.body === null) {
        ctx.status = claim.status;
        ctx.body = null;
        return undefined;
      }
      ctx.status = claim.status;
      ctx.body = claim.body;
      return undefined;
    }
    try {
      const result = await run();
      await this.deps.idempotency.complete(principal, key, result === undefined ? ctx.status : status, result ?? null);
      return result;
    } catch (error) {
      const failed = error instanceof DomainError ? error.status : 500;
      if (failed === 422 || failed === 409 || failed === 429 || failed >= 500) {
        await this.deps.idempotency.release(principal, key);
      } else {
        const domain = error as DomainError;
        await this.deps.idempotency.complete(principal, key, failed, { error: domain.code, detail: domain.message });
      }
      throw error;
    }
  }
}

declare module 'koa' {
  interface Request {
    /** The parsed JSON body as sent, kept for the idempotency fingerprint. */
    rawBodyForIdempotency?: unknown;
  }
}
