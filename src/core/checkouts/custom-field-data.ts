import type { FieldIssue } from '../polar-api/errors.js';
import type { AttachedCustomFieldWire } from '../products/embedded.js';
import type { CustomFieldData } from './repository.js';

/**
 * Checks a buyer's answers against the product's attached custom fields, as Polar does: only known slugs, values
 * of the field's type within its bounds, and (when `requireAll`, i.e. on confirm) every required field answered —
 * a required checkbox must be ticked. Dates are ISO dates (YYYY-MM-DD) and compare with `ge`/`le` as Unix seconds.
 */
export function customFieldDataIssues(
  data: CustomFieldData,
  fields: readonly AttachedCustomFieldWire[],
  options: { requireAll: boolean; loc?: Array<string | number> },
): FieldIssue[] {
  const loc = options.loc ?? ['body', 'custom_field_data'];
  const bySlug = new Map(fields.map((field) => [field.custom_field.slug, field]));
  const issues: FieldIssue[] = [];
  for (const slug of Object.keys(data)) {
    if (!bySlug.has(slug)) issues.push({ loc: [...loc, slug], msg: 'Unknown custom field.', type: 'extra_forbidden' });
  }
  for (const [slug, attached] of bySlug) {
    const value = data[slug];
    const at = [...loc, slug];
    const missing =
      value === undefined ||
      value === null ||
      value === '' ||
      (attached.custom_field.type === 'checkbox' && value === false);
    if (missing) {
      if (options.requireAll && attached.required) issues.push({ loc: at, msg: 'Field required', type: 'missing' });
      continue;
    }
    const problem = valueProblem(
      attached.custom_field.type,
      attached.custom_field.properties as Record<string, unknown>,
      value,
    );
    if (problem) issues.push({ loc: at, msg: problem, type: 'value_error' });
  }
  return issues;
}

function valueProblem(
  type: string,
  properties: Record<string, unknown>,
  value: string | number | boolean,
): string | null {
  const ge = typeof properties.ge === 'number' ? properties.ge : null;
  const le = typeof properties.le === 'number' ? properties.le : null;
  switch (type) {
    case 'text': {
      if (typeof value !== 'string') return 'Input should be a valid string';
      if (typeof properties.min_length === 'number' && value.length < properties.min_length)
        return `String should have at least ${properties.min_length} characters`;
      if (typeof properties.max_length === 'number' && value.length > properties.max_length)
        return `String should have at most ${properties.max_length} characters`;
      return null;
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isInteger(value)) return 'Input should be a valid integer';
      if (ge !== null && value < ge) return `Input should be greater than or equal to ${ge}`;
      if (le !== null && value > le) return `Input should be less than or equal to ${le}`;
      return null;
    }
    case 'date': {
      if (
        typeof value !== 'string' ||
        !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
        Number.isNaN(Date.parse(`${value}T00:00:00Z`))
      )
        return 'Input should be a valid date (YYYY-MM-DD)';
      const seconds = Date.parse(`${value}T00:00:00Z`) / 1000;
      if (ge !== null && seconds < ge) return 'Date is too early';
      if (le !== null && seconds > le) return 'Date is too late';
      return null;
    }
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'Input should be a valid boolean';
    case 'select': {
      const options = Array.isArray(properties.options) ? (properties.options as Array<{ value: string }>) : [];
      return typeof value === 'string' && options.some((option) => option.value === value)
        ? null
        : `Input should be one of: ${options.map((o) => o.value).join(', ')}`;
    }
    default:
      return null;
  }
}
