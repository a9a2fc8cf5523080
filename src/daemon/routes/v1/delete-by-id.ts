import type { MerchantActor } from '../../../core/polar-api/actor.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { writeScopes } from '../../../core/polar-api/scopes.js';
import type { V1Api } from './operation.js';

/** What a "delete by id" operation names; the rest (DELETE, the id in the path, its tag's write scopes, 204) is fixed. */
export interface DeleteByIdSpec {
  path: string;
  operationId: string;
  tag: string;
  summary: string;
}

/** Registers the usual `DELETE …/:id → 204` operation: `remove` deletes the resource or throws. */
export function deleteById(
  api: V1Api,
  spec: DeleteByIdSpec,
  remove: (actor: MerchantActor, id: string) => Promise<unknown>,
): void {
  api.op(
    { method: 'delete', ...spec, scopes: writeScopes(spec.tag), params: idParams, status: 204 },
    async ({ actor, params }) => {
      await remove(actor, params.id);
      return undefined;
    },
  );
}
