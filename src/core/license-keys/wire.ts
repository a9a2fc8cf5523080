import type { CustomerWire } from '../customers/schemas.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { LicenseKey, LicenseKeyActivation } from './repository.js';
import type { LicenseKeyActivationBaseWire, LicenseKeyReadWire } from './schemas.js';

/** A license key as Polar's LicenseKeyRead shows it; `key` is the opened (or just presented) key. */
export function licenseKeyWire(key: LicenseKey, plain: string, customer: CustomerWire): LicenseKeyReadWire {
  return {
    id: key.id,
    created_at: iso(key.createdAt),
    modified_at: isoOrNull(key.modifiedAt),
    organization_id: key.organizationId,
    customer_id: key.customerId,
    customer,
    benefit_id: key.benefitId,
    key: plain,
    display_key: key.displayKey,
    status: key.status,
    limit_activations: key.limitActivations,
    usage: key.usage,
    limit_usage: key.limitUsage,
    validations: key.validations,
    last_validated_at: isoOrNull(key.lastValidatedAt),
    expires_at: isoOrNull(key.expiresAt),
  };
}

export function activationWire(activation: LicenseKeyActivation): LicenseKeyActivationBaseWire {
  return {
    id: activation.id,
    license_key_id: activation.licenseKeyId,
    label: activation.label,
    meta: activation.meta,
    created_at: iso(activation.createdAt),
    modified_at: isoOrNull(activation.modifiedAt),
  };
}
