import type { LicenseKeyReadWire } from '../../../core/license-keys/schemas.js';
import { printFields } from '../../output.js';

export function printKey(key: LicenseKeyReadWire): void {
  printFields([
    ['id', key.id],
    ['key', key.key],
    ['status', key.status],
    ['customer', key.customer.email ?? key.customer_id],
    ['benefit', key.benefit_id],
    ['usage', `${key.usage}${key.limit_usage === null ? '' : ` of ${key.limit_usage}`}`],
    ['activations limit', key.limit_activations === null ? 'none' : String(key.limit_activations)],
    ['validations', `${key.validations}${key.last_validated_at ? ` (last ${key.last_validated_at})` : ''}`],
    ['expires', key.expires_at ?? 'never'],
  ]);
}
