import type { CustomFieldWire } from '../../../core/custom-fields/schemas.js';
import { UsageError } from '../../errors.js';

export interface FieldOptions {
  slug?: string;
  name?: string;
  metadata?: string[];
  label?: string;
  helpText?: string;
  placeholder?: string;
  textarea?: boolean;
  minLength?: string;
  maxLength?: string;
  ge?: string;
  le?: string;
  option?: string[];
  json?: boolean;
}

type Properties = Record<string, unknown>;

const TYPE_FLAGS: Record<string, Array<[keyof FieldOptions, string]>> = {
  text: [
    ['textarea', '--[no-]textarea'],
    ['minLength', '--min-length'],
    ['maxLength', '--max-length'],
  ],
  number: [
    ['ge', '--ge'],
    ['le', '--le'],
  ],
  date: [
    ['ge', '--ge'],
    ['le', '--le'],
  ],
  checkbox: [],
  select: [['option', '--option']],
};
const FORM_FLAGS: Array<[keyof FieldOptions, string]> = [
  ['label', 'form_label'],
  ['helpText', 'form_help_text'],
  ['placeholder', 'form_placeholder'],
];

function integer(flag: string, value: string): number {
  if (!/^-?\d+$/.test(value)) throw new UsageError(`${flag} takes a whole number (got "${value}")`);
  return Number(value);
}

/** Date bounds travel as Unix seconds; people type dates. */
function dateBound(flag: string, value: string): number {
  if (/^-?\d+$/.test(value)) return Number(value);
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(ms)) throw new UsageError(`${flag} takes a date (YYYY-MM-DD) or Unix seconds (got "${value}")`);
  return Math.floor(ms / 1000);
}

function option(entry: string): { value: string; label: string } {
  const eq = entry.indexOf('=');
  if (eq === 0) throw new UsageError(`--option takes value=label (got "${entry}")`);
  // A bare value is its own label.
  return eq < 0 ? { value: entry, label: entry } : { value: entry.slice(0, eq), label: entry.slice(eq + 1) };
}

/** Merges the flags given onto `base` (empty for create) as the properties of `type`; null when none was given. */
export function propertiesFrom(type: string, opts: FieldOptions, base: Properties = {}): Properties | null {
  const own = TYPE_FLAGS[type];
  if (!own) throw new UsageError(`unknown --type "${type}": use text, number, date, checkbox or select`);
  const foreign = Object.entries(TYPE_FLAGS)
    .flatMap(([, flags]) => flags)
    .filter(([key]) => opts[key] !== undefined && !own.some(([mine]) => mine === key))
    .map(([, flag]) => flag);
  if (foreign.length > 0)
    throw new UsageError(
      `${[...new Set(foreign)].join(', ')} do${foreign.length === 1 ? 'es' : ''} not apply to a ${type} field`,
    );
  const given = [...FORM_FLAGS, ...own].some(([key]) => opts[key] !== undefined);
  if (!given) return null;
  const properties: Properties = { ...base };
  for (const [key, wire] of FORM_FLAGS) if (opts[key] !== undefined) properties[wire] = opts[key];
  if (opts.textarea !== undefined) properties.textarea = opts.textarea;
  if (opts.minLength !== undefined) properties.min_length = integer('--min-length', opts.minLength);
  if (opts.maxLength !== undefined) properties.max_length = integer('--max-length', opts.maxLength);
  for (const flag of ['ge', 'le'] as const) {
    const value = opts[flag];
    if (value !== undefined)
      properties[flag] = type === 'date' ? dateBound(`--${flag}`, value) : integer(`--${flag}`, value);
  }
  if (opts.option !== undefined) properties.options = opts.option.map(option);
  return properties;
}

export function describe(field: CustomFieldWire): string {
  return `${field.type} field "${field.name}" (${field.slug}, ${field.id})`;
}
