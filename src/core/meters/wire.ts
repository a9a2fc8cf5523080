import { customerWire } from '../customers/wire.js';
import type { Customer } from '../customers/repository.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { CustomerCustomerMeterWire, CustomerMeterWire, MeterWire } from './schemas.js';
import type { Meter } from './repository.js';

export function meterWire(meter: Meter): MeterWire {
  return {
    metadata: meter.metadata,
    created_at: iso(meter.createdAt),
    modified_at: isoOrNull(meter.modifiedAt),
    id: meter.id,
    name: meter.name,
    unit: meter.unit,
    custom_label: meter.customLabel,
    custom_multiplier: meter.customMultiplier,
    filter: meter.filter,
    aggregation: meter.aggregation,
    organization_id: meter.organizationId,
    archived_at: isoOrNull(meter.archivedAt),
    backfill_pending: meter.backfillTarget !== null,
  };
}

/** A customer's meter as figured by customer-meters.ts: consumed and credited units over all their rows. */
export interface CustomerMeterFigures {
  id: string;
  createdAt: Date;
  modifiedAt: Date | null;
  consumed: number;
  credited: number;
}

export function customerMeterWire(figures: CustomerMeterFigures, customer: Customer, meter: Meter): CustomerMeterWire {
  return {
    id: figures.id,
    created_at: iso(figures.createdAt),
    modified_at: isoOrNull(figures.modifiedAt),
    customer_id: customer.id,
    meter_id: meter.id,
    consumed_units: figures.consumed,
    credited_units: figures.credited,
    balance: figures.credited - figures.consumed,
    customer: customerWire(customer),
    meter: meterWire(meter),
  };
}

export function customerCustomerMeterWire(
  figures: CustomerMeterFigures,
  customerId: string,
  meter: Meter,
): CustomerCustomerMeterWire {
  return {
    id: figures.id,
    created_at: iso(figures.createdAt),
    modified_at: isoOrNull(figures.modifiedAt),
    customer_id: customerId,
    meter_id: meter.id,
    consumed_units: figures.consumed,
    credited_units: figures.credited,
    balance: figures.credited - figures.consumed,
    meter: {
      id: meter.id,
      created_at: iso(meter.createdAt),
      modified_at: isoOrNull(meter.modifiedAt),
      name: meter.name,
    },
  };
}
