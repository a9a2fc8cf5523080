import type { Customer } from '../customers/repository.js';
import { customerWire } from '../customers/wire.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { EventType, StoredEvent } from './repository.js';
import type { EventTypeWire, EventWire } from './schemas.js';

export function eventWire(event: StoredEvent, customer: Customer | null, childCount: number): EventWire {
  return {
    id: event.id,
    timestamp: new Date(event.timestamp).toISOString(),
    organization_id: event.organizationId,
    customer_id: event.customerId ?? customer?.id ?? null,
    customer: customer ? customerWire(customer) : null,
    external_customer_id: event.externalCustomerId,
    member_id: event.memberId,
    external_member_id: event.externalMemberId,
    child_count: childCount,
    parent_id: event.parentId,
    label: event.name,
    name: event.name,
    source: event.source,
    metadata: event.metadata,
  };
}

export function eventTypeWire(type: EventType): EventTypeWire {
  return {
    id: type.id,
    created_at: iso(type.createdAt),
    modified_at: isoOrNull(type.modifiedAt),
    name: type.name,
    label: type.label,
    label_property_selector: null,
    organization_id: type.organizationId,
    source: type.source,
    occurrences: type.occurrences,
    first_seen: new Date(type.firstSeen).toISOString(),
    last_seen: new Date(type.lastSeen).toISOString(),
  };
}
