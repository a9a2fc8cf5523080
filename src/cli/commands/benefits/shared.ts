import type { BenefitWire } from '../../../core/benefits/schemas.js';
import { UsageError } from '../../errors.js';

export interface PropertyOptions {
  description?: string;
  visibility?: string;
  metadata?: string[];
  note?: string;
  guildId?: string;
  roleId?: string;
  kickMember?: boolean;
  repository?: string;
  permission?: string;
  file?: string[];
  archive?: string[];
  prefix?: string;
  expires?: string;
  activationsLimit?: string;
  customerAdmin?: boolean;
  limitUsage?: string;
  units?: string;
  rollover?: boolean;
  meterId?: string;
  json?: boolean;
}

type Properties = Record<string, unknown>;

/** Which flags belong to which type, so a flag given for the wrong type is a usage error, not a silent no-op. */
const FLAGS_BY_TYPE: Record<string, Array<[keyof PropertyOptions, string]>> = {
  custom: [['note', '--note']],
  discord: [
    ['guildId', '--guild-id'],
    ['roleId', '--role-id'],
    ['kickMember', '--[no-]kick-member'],
  ],
  github_repository: [
    ['repository', '--repository'],
    ['permission', '--permission'],
  ],
  downloadables: [
    ['file', '--file'],
    ['archive', '--archive'],
  ],
  license_keys: [
    ['prefix', '--prefix'],
    ['expires', '--expires'],
    ['activationsLimit', '--activations-limit'],
    ['customerAdmin', '--[no-]customer-admin'],
    ['limitUsage', '--limit-usage'],
  ],
  meter_credit: [
    ['units', '--units'],
    ['rollover', '--[no-]rollover'],
    ['meterId', '--meter-id'],
  ],
};

function integer(flag: string, value: string): number {
  if (!/^-?\d+$/.test(value)) throw new UsageError(`${flag} takes a whole number (got "${value}")`);
  return Number(value);
}

/** An integer, or null for "none"/"never" (clearing an optional license-key limit). */
function integerOrNone(flag: string, value: string): number | null {
  return value === 'none' || value === 'never' ? null : integer(flag, value);
}

function expiration(value: string): { ttl: number; timeframe: string } | null {
  if (value === 'never' || value === 'none') return null;
  const match = /^(\d+)\s*(year|month|day)s?$/.exec(value);
  if (!match)
    throw new UsageError(`--expires takes a number and year, month or day, e.g. 1year or 30day (got "${value}")`);
  return { ttl: Number(match[1]), timeframe: match[2]! };
}

export function checkFlagsFit(type: string, opts: PropertyOptions): void {
  for (const [other, flags] of Object.entries(FLAGS_BY_TYPE)) {
    if (other === type) continue;
    const given = flags.filter(([key]) => opts[key] !== undefined).map(([, flag]) => flag);
    if (given.length > 0)
      throw new UsageError(
        `${given.join(', ')} ${given.length === 1 ? 'applies' : 'apply'} to --type ${other}, not ${type}`,
      );
  }
}

/** The create-shaped properties a benefit has now, for update to merge flags onto. */
export function currentProperties(benefit: BenefitWire): Properties {
  const properties = benefit.properties as Properties;
  if (benefit.type === 'discord') {
    const { guild_id, role_id, kick_member } = properties as {
      guild_id: string;
      role_id: string;
      kick_member: boolean;
    };
    return { guild_token: guild_id, role_id, kick_member };
  }
  return { ...properties };
}

/** Merges the flags given onto `base` (empty for create), as the properties of `type`. Returns null if none given. */
export function propertiesFrom(type: string, opts: PropertyOptions, base: Properties = {}): Properties | null {
  checkFlagsFit(type, opts);
  const flags = FLAGS_BY_TYPE[type];
  if (!flags)
    throw new UsageError(
      `unknown --type "${type}": use custom, discord, github_repository, downloadables, license_keys or meter_credit`,
    );
  if (!flags.some(([key]) => opts[key] !== undefined)) return null;
  const properties: Properties = { ...base };
  switch (type) {
    case 'custom':
      properties.note = opts.note;
      break;
    case 'discord':
      if (opts.guildId !== undefined) properties.guild_token = opts.guildId;
      if (opts.roleId !== undefined) properties.role_id = opts.roleId;
      if (opts.kickMember !== undefined) properties.kick_member = opts.kickMember;
      properties.kick_member ??= false;
      break;
    case 'github_repository':
      if (opts.repository !== undefined) {
        const [owner, name, ...rest] = opts.repository.split('/');
        if (!owner || !name || rest.length > 0)
          throw new UsageError(`--repository takes owner/name (got "${opts.repository}")`);
        properties.repository_owner = owner;
        properties.repository_name = name;
      }
      if (opts.permission !== undefined) properties.permission = opts.permission;
      break;
    case 'downloadables': {
      if (opts.file !== undefined) properties.files = opts.file;
      const archived: Record<string, boolean> = {
        ...((properties.archived as Record<string, boolean> | undefined) ?? {}),
      };
      for (const id of opts.archive ?? []) archived[id] = true;
      properties.archived = archived;
      break;
    }
    case 'license_keys':
      if (opts.prefix !== undefined) properties.prefix = opts.prefix;
      if (opts.expires !== undefined) properties.expires = expiration(opts.expires);
      if (opts.activationsLimit !== undefined) {
        const limit = integerOrNone('--activations-limit', opts.activationsLimit);
        const previous = properties.activations as { enable_customer_admin?: boolean } | null | undefined;
        properties.activations =
          limit === null
            ? null
            : { limit, enable_customer_admin: opts.customerAdmin ?? previous?.enable_customer_admin ?? false };
      } else if (opts.customerAdmin !== undefined) {
        const previous = properties.activations as { limit: number } | null | undefined;
        if (!previous)
          throw new UsageError('--[no-]customer-admin needs --activations-limit (the benefit has no activation limit)');
        properties.activations = { ...previous, enable_customer_admin: opts.customerAdmin };
      }
      if (opts.limitUsage !== undefined) properties.limit_usage = integerOrNone('--limit-usage', opts.limitUsage);
      break;
    case 'meter_credit':
      if (opts.units !== undefined) properties.units = integer('--units', opts.units);
      if (opts.rollover !== undefined) properties.rollover = opts.rollover;
      properties.rollover ??= false;
      if (opts.meterId !== undefined) properties.meter_id = opts.meterId;
      break;
  }
  return properties;
}

export function describe(benefit: BenefitWire): string {
  return `${benefit.type} benefit "${benefit.description}" (${benefit.id})`;
}
