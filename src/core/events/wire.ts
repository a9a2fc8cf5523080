import type { Customer } from '../customers/repository.js';
import { customerWire } from '../customers/wire.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { EventNameStats, StoredEventType } from './event-types-repository.js';
import type { StoredEvent } from './repository.js';
import type { EventNameWire, EventTypeUpdatedWire, EventTypeWire, EventWire } from './schemas.js';
import { metadataWire } from './structured-metadata.js';

/**
 * An event's label, as Polar gives it: its type's, or, when the type names a property (`subject`, or
 * `metadata.subject`: the same, metadata being where an event's properties are), that property's value where the
 * event has one.
 */
export function eventLabel(
  event: StoredEvent,
  type: { label: string; labelPropertySelector: string | null } | undefined,
): string {
  if (!type) return event.name;
  if (type.labelPropertySelector) {
    const path = type.labelPropertySelector.split('.');
    if (path[0] === 'metadata' && path.length > 1) path.shift();
    let value: unknown = event.metadata;
    for (const key of path)
      value =
        typeof value === 'object' && value !== null && Object.hasOwn(value, key)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    if ((typeof value === 'string' && value !== '') || typeof value === 'number' || typeof value === 'boolean')
      return String(value);
  }
  return type.label;
}

export function eventWire(
  event: StoredEvent,
  customer: Customer | null,
  childCount: number,
  type?: { label: string; labelPropertySelector: string | null },
): EventWire {
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
    label: eventLabel(event, type),
    name: event.name,
    source: event.source,
    metadata: metadataWire(event.metadata),
  };
}

export function eventTypeWire(type: StoredEventType): EventTypeWire {
  return {
    ...eventTypeUpdatedWire(type),
    source: type.source,
    occurrences: type.occurrences,
    first_seen: new Date(type.firstSeen).toISOString(),
    last_seen: new Date(type.lastSeen).toISOString(),
  };
}

/** The type without its counts: what an update answers. */
export function eventTypeUpdatedWire(type: StoredEventType): EventTypeUpdatedWire {
  return {
    id: type.id,
    created_at: iso(type.createdAt),
    modified_at: isoOrNull(type.modifiedAt),
    name: type.name,
    label: type.label,
    label_property_selector: type.labelPropertySelector,
    organization_id: type.organizationId,
  };
}

export function eventNameWire(name: EventNameStats): EventNameWire {
  return {
    name: name.name,
    label: name.label,
    source: name.source,
    occurrences: name.occurrences,
    first_seen: new Date(name.firstSeen).toISOString(),
    last_seen: new Date(name.lastSeen).toISOString(),
  };
}
