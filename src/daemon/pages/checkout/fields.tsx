import type { FormEvent, ReactNode } from 'react';
import { INPUT_COUNTRIES } from '../../../core/customers/countries.js';
import { TEST_CARDS } from '../../../core/payments/test-cards.js';
import type { AttachedField, FieldErrors } from './form.js';
import { billingFieldName, customFieldName } from './form.js';

/** Form fields of the hosted checkout: each shows its label, a required marker, help and its own errors. */

export interface FieldContext {
  /** The value a field shows: what the buyer just sent when it has to be shown again, else what is saved. */
  value(name: string): string;
  errors: FieldErrors;
}

const errorId = (name: string) => `${name}-error`;

function invalidProps(ctx: FieldContext, name: string) {
  return ctx.errors.has(name) ? { 'aria-invalid': true, 'aria-describedby': errorId(name) } : {};
}

export function Errors({ ctx, name }: { ctx: FieldContext; name: string }) {
  const messages = ctx.errors.get(name);
  if (!messages) return null;
  return (
    <p className="error" id={errorId(name)}>
      {messages.join(' ')}
    </p>
  );
}

export function Field(props: {
  ctx: FieldContext;
  name: string;
  label: string;
  required?: boolean;
  help?: string | null;
  children: ReactNode;
}) {
  return (
    <div className={props.ctx.errors.has(props.name) ? 'field invalid' : 'field'}>
      <label htmlFor={props.name}>
        {props.label}
        {props.required ? <Required /> : null}
      </label>
      {props.children}
      {props.help ? <p className="help">{props.help}</p> : null}
      <Errors ctx={props.ctx} name={props.name} />
    </div>
  );
}

export function Required() {
  return (
    <span className="req" title="required">
      *
    </span>
  );
}

export function TextField(props: {
  ctx: FieldContext;
  name: string;
  label: string;
  type?: string;
  required?: boolean;
  autoComplete?: string;
  help?: string | null;
  placeholder?: string;
}) {
  const { ctx, name } = props;
  return (
    <Field ctx={ctx} name={name} label={props.label} required={props.required} help={props.help}>
      <input
        id={name}
        name={name}
        type={props.type ?? 'text'}
        defaultValue={ctx.value(name)}
        required={props.required}
        autoComplete={props.autoComplete}
        placeholder={props.placeholder}
        {...invalidProps(ctx, name)}
      />
    </Field>
  );
}

const isoDate = (seconds: unknown) =>
  typeof seconds === 'number' ? new Date(seconds * 1000).toISOString().slice(0, 10) : undefined;
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const num = (value: unknown) => (typeof value === 'number' ? value : undefined);

/** A merchant's custom field (text, number, date, checkbox or select) as Polar's checkout shows it. */
export function CustomField({ ctx, attached }: { ctx: FieldContext; attached: AttachedField }) {
  const { slug, type, properties } = attached.custom_field;
  const name = customFieldName(slug);
  const label = str(properties.form_label) ?? attached.custom_field.name;
  const help = str(properties.form_help_text) ?? null;
  const placeholder = str(properties.form_placeholder);
  const common = { id: name, name, required: attached.required, ...invalidProps(ctx, name) };
  if (type === 'checkbox') {
    return (
      <div className={ctx.errors.has(name) ? 'field invalid' : 'field'}>
        <label className="inline" htmlFor={name}>
          <input type="checkbox" {...common} defaultChecked={ctx.value(name) === 'on'} />
          <span>
            {label}
            {attached.required ? <Required /> : null}
          </span>
        </label>
        {help ? <p className="help">{help}</p> : null}
        <Errors ctx={ctx} name={name} />
      </div>
    );
  }
  let control: ReactNode;
  if (type === 'select') {
    const options = Array.isArray(properties.options)
      ? (properties.options as Array<{ value: string; label: string }>)
      : [];
    control = (
      <select {...common} defaultValue={ctx.value(name)}>
        <option value="">{placeholder ?? 'Choose…'}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    );
  } else if (type === 'text' && properties.textarea === true) {
    control = (
      <textarea
        {...common}
        rows={3}
        defaultValue={ctx.value(name)}
        placeholder={placeholder}
        minLength={num(properties.min_length)}
        maxLength={num(properties.max_length)}
      />
    );
  } else if (type === 'text') {
    control = (
      <input
        type="text"
        {...common}
        defaultValue={ctx.value(name)}
        placeholder={placeholder}
        minLength={num(properties.min_length)}
        maxLength={num(properties.max_length)}
      />
    );
  } else if (type === 'number') {
    control = (
      <input
        type="number"
        step={1}
        {...common}
        defaultValue={ctx.value(name)}
        placeholder={placeholder}
        min={num(properties.ge)}
        max={num(properties.le)}
      />
    );
  } else {
    control = (
      <input
        type="date"
        {...common}
        defaultValue={ctx.value(name)}
        min={isoDate(properties.ge)}
        max={isoDate(properties.le)}
      />
    );
  }
  return (
    <Field ctx={ctx} name={name} label={label} required={attached.required} help={help}>
      {control}
    </Field>
  );
}

type Mode = 'required' | 'optional' | 'disabled';
export interface CountryOption {
  code: string;
  name: string;
}
let countries: CountryOption[] | null = null;
/** The country list, named and sorted once on the server; the page's props carry it to the browser. */
export function countryOptions(): CountryOption[] {
  if (countries) return countries;
  const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
  countries = INPUT_COUNTRIES.map((code) => ({ code, name: regionNames.of(code) ?? code })).sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  return countries;
}
const BILLING_LABELS: Record<string, [string, string]> = {
  line1: ['Address', 'address-line1'],
  line2: ['Address line 2', 'address-line2'],
  postal_code: ['Postal code', 'postal-code'],
  city: ['City', 'address-level2'],
  state: ['State / province', 'address-level1'],
};

/** Billing address fields as `billing_address_fields` asks for them: country first, the rest only when asked. */
export function BillingFields({
  ctx,
  modes,
  countries: options,
  live,
}: {
  ctx: FieldContext;
  modes: Record<'country' | 'state' | 'city' | 'postal_code' | 'line1' | 'line2', Mode>;
  countries: CountryOption[];
  /** Hydrated: the totals follow the country by themselves. */
  live: boolean;
}) {
  const country = billingFieldName('country');
  return (
    <fieldset>
      <legend>Billing address</legend>
      <Field ctx={ctx} name={country} label="Country" required={modes.country === 'required'}>
        <select
          id={country}
          name={country}
          defaultValue={ctx.value(country)}
          required={modes.country === 'required'}
          autoComplete="country"
          {...invalidProps(ctx, country)}
        >
          <option value="">Choose a country…</option>
          {options.map((option) => (
            <option key={option.code} value={option.code}>
              {option.name}
            </option>
          ))}
        </select>
      </Field>
      {(['line1', 'line2', 'postal_code', 'city', 'state'] as const).map((field) => {
        const name = billingFieldName(field);
        // A field the checkout does not ask for is still shown when an error names it (a country just changed).
        if (modes[field] === 'disabled' && !ctx.errors.has(name)) return null;
        const [label, autoComplete] = BILLING_LABELS[field]!;
        return (
          <TextField
            key={field}
            ctx={ctx}
            name={name}
            label={label}
            required={modes[field] === 'required'}
            autoComplete={autoComplete}
          />
        );
      })}
      {live ? null : (
        <p className="note">Changed the country? Use “Update totals” to see its tax and fields before paying.</p>
      )}
    </fieldset>
  );
}

const CARD_NOTES: Record<string, string> = {
  tok_visa: 'succeeds',
  tok_mastercard: 'succeeds',
  tok_chargeDeclined: 'is declined',
  tok_chargeDeclinedInsufficientFunds: 'is declined for insufficient funds',
  tok_chargeCustomerFail: 'succeeds now, declines on renewals',
};

const spaced = (number: string) => number.replace(/(\d{4})(?=\d)/g, '$1 ');

/** Hydrated: groups the digits by four as the buyer types (the server reads the number with or without spaces). */
function formatCardNumber(event: FormEvent<HTMLInputElement>): void {
  const input = event.currentTarget;
  const formatted = spaced(input.value.replace(/\D/g, '').slice(0, 19));
  if (formatted !== input.value) input.value = formatted;
}

/** The sandbox's card field: only a number is asked, and only the test numbers are accepted. */
export function CardField({ ctx }: { ctx: FieldContext }) {
  const name = 'card_number';
  return (
    <Field ctx={ctx} name={name} label="Card number" required>
      <input
        id={name}
        name={name}
        type="text"
        inputMode="numeric"
        autoComplete="cc-number"
        required
        placeholder="4242 4242 4242 4242"
        onInput={formatCardNumber}
        {...invalidProps(ctx, name)}
      />
      <div className="note">
        Sandbox payments: no money moves. Use a test card:
        <ul className="cards">
          {TEST_CARDS.map((card) => (
            <li key={card.token}>
              <code>{spaced(card.number)}</code> {CARD_NOTES[card.token] ?? ''}
            </li>
          ))}
        </ul>
      </div>
    </Field>
  );
}
