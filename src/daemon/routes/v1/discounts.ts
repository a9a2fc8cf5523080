import type { CoreContext } from '../../../core/context.js';
import type { V1Api } from './operation.js';

// PLACEHOLDER: the helper building this resource registers its operations here.
export function registerDiscountsRoutes(_api: V1Api, _core: CoreContext): void {}
