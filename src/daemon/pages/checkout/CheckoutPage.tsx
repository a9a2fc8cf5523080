import { useEffect, useRef, useState } from 'react';
import type { CheckoutPublicWire } from '../../../core/checkouts/schemas.js';
import type { FieldIssue } from '../../../core/polar-api/errors.js';
import type { FormValues } from './form.js';
import { attachedFields, billingFieldName, customFieldName, groupIssues } from './form.js';
import type { CountryOption, FieldContext } from './fields.js';
import { BillingFields, CardField, CustomField, Errors, Field, Required, TextField } from './fields.js';
import { formatMoney, fractionDigits, toMajorString } from './money.js';
import { useLiveCheckout } from './live.js';

type Price = NonNullable<CheckoutPublicWire['product_price']>;
type Product = CheckoutPublicWire['products'][number];

const FORM_ID = 'checkout-form';
const INTERVALS: Record<string, string> = { day: 'day', week: 'week', month: 'month', year: 'year' };

function every(product: Product | null): string {
  if (!product?.recurring_interval) return '';
  const count = product.recurring_interval_count ?? 1;
  const unit = INTERVALS[product.recurring_interval] ?? product.recurring_interval;
  return count === 1 ? ` / ${unit}` : ` / ${count} ${unit}s`;
}

export function priceLabel(price: Price | null, product: Product | null): string {
  if (!price) return '';
  switch (price.amount_type) {
    case 'fixed':
      return `${formatMoney(price.price_amount, price.price_currency)}${every(product)}`;
    case 'custom':
      return `Pay what you want (from ${formatMoney(price.minimum_amount ?? 0, price.price_currency)})`;
    case 'free':
      return 'Free';
    default:
      return `Usage-based${every(product)}`;
  }
}

/** What the checkout's fields show when nothing was just sent: the saved checkout. */
function savedValue(checkout: CheckoutPublicWire, name: string): string {
  if (name === 'customer_email') return checkout.customer_email ?? '';
  if (name === 'customer_name') return checkout.customer_name ?? '';
  if (name === 'discount_code') return checkout.discount?.code ?? '';
  if (name === 'amount') return toMajorString(checkout.amount, checkout.currency);
  if (name === 'product_id') return checkout.product_id ?? '';
  if (name.startsWith('billing_')) {
    const address = checkout.customer_billing_address;
    const value = address?.[name.slice('billing_'.length) as keyof typeof address];
    // US and Canadian states are kept as US-NY; the buyer typed NY.
    return name === billingFieldName('state') && value && address && value.startsWith(`${address.country}-`)
      ? value.slice(3)
      : (value ?? '');
  }
  if (name.startsWith('cf_')) {
    const value = checkout.custom_field_data[name.slice(3)];
    if (value === true) return 'on';
    return value === null || value === undefined || value === false ? '' : String(value);
  }
  return '';
}

/** Everything the page renders from: plain JSON, since the browser hydrates from the same props. */
export interface CheckoutPageProps {
  checkout: CheckoutPublicWire;
  /** What the buyer sent, shown again when it could not be saved. */
  values: FormValues | null;
  issues: FieldIssue[];
  paymentError: string | null;
  notice: string | null;
  /** Country names as the server spelled them, so the browser's hydration matches whatever its own ICU says. */
  countries: CountryOption[];
}

function Totals({ checkout }: { checkout: CheckoutPublicWire }) {
  const money = (amount: number) => formatMoney(amount, checkout.currency);
  return (
    <table className="totals">
      <tbody>
        <tr>
          <td>Subtotal</td>
          <td>{money(checkout.amount)}</td>
        </tr>
        {checkout.discount_amount > 0 ? (
          <tr>
            <td>{`Discount${checkout.discount ? ` (${checkout.discount.code ?? checkout.discount.name})` : ''}`}</td>
            <td>{`−${money(checkout.discount_amount)}`}</td>
          </tr>
        ) : null}
        <tr>
          <td>Tax</td>
          <td>{money(checkout.tax_amount ?? 0)}</td>
        </tr>
        <tr className="total">
          <td>Total{checkout.product?.recurring_interval ? ' due today' : ''}</td>
          <td data-testid="total">{money(checkout.total_amount)}</td>
        </tr>
      </tbody>
    </table>
  );
}

export function CheckoutPage(props: CheckoutPageProps) {
  // Hydrated, the page keeps the checkout and its errors in state and updates them as the buyer types.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const formRef = useRef<HTMLFormElement | null>(null);
  const live = useLiveCheckout(props.checkout, props.issues, formRef);
  const { checkout } = live;
  const errors = groupIssues(live.issues);
  // An unticked checkbox is absent from what was sent; it must show unticked, not as saved.
  const sent = (name: string) => props.values?.[name] ?? (name.startsWith('cf_') ? '' : savedValue(checkout, name));
  const ctx: FieldContext = { errors, value: (name) => (props.values ? sent(name) : savedValue(checkout, name)) };
  const product = checkout.product;
  const price = checkout.product_price;
  const general = errors.get('');
  return (
    <main className="checkout">
      <section aria-label="Order summary">
        <p className="org">{checkout.organization.name}</p>
        <h1>{product?.name}</h1>
        {product?.description ? <p className="description">{product.description}</p> : null}
        <p className="price">{priceLabel(price, product)}</p>
        <Totals checkout={checkout} />
        {/* First submit button of the form in document order, so Enter in any field updates totals and never pays.
              Hydrated, totals follow the fields as they change and Enter is caught by the form instead. */}
        {hydrated ? null : (
          <button type="submit" form={FORM_ID} name="action" value="apply" formNoValidate>
            Update totals
          </button>
        )}
      </section>
      <form
        id={FORM_ID}
        method="post"
        autoComplete="on"
        ref={formRef}
        onChange={live.onChange}
        onKeyDown={live.onKeyDown}
        onSubmit={live.onSubmit}
      >
        {props.paymentError ? (
          <p className="alert" role="alert">
            {props.paymentError}
          </p>
        ) : null}
        {general ? (
          <div className="alert" role="alert">
            {general.map((message) => (
              <p key={message}>{message}</p>
            ))}
          </div>
        ) : null}
        {props.notice ? (
          <p className="notice" role="status">
            {props.notice}
          </p>
        ) : null}
        {checkout.products.length > 1 ? (
          <fieldset className="field">
            <legend>Choose a product</legend>
            {checkout.products.map((option) => (
              <label key={option.id} className="inline">
                <input
                  type="radio"
                  name="product_id"
                  value={option.id}
                  defaultChecked={ctx.value('product_id') === option.id}
                />
                <span>
                  {option.name} — {priceLabel(option.prices[0] ?? null, option)}
                </span>
              </label>
            ))}
            <Errors ctx={ctx} name="product_id" />
          </fieldset>
        ) : null}
        {price?.amount_type === 'custom' ? (
          <Field
            ctx={ctx}
            name="amount"
            label={`Amount (${checkout.currency.toUpperCase()})`}
            required
            help={`From ${formatMoney(price.minimum_amount ?? 0, checkout.currency)}${price.maximum_amount !== null ? ` to ${formatMoney(price.maximum_amount, checkout.currency)}` : ''}.`}
          >
            <input
              id="amount"
              name="amount"
              type="text"
              inputMode="decimal"
              required
              defaultValue={ctx.value('amount')}
              pattern={fractionDigits(checkout.currency) > 0 ? '\\d+([.,]\\d{1,2})?' : '\\d+'}
            />
          </Field>
        ) : null}
        <h2>Contact</h2>
        <TextField ctx={ctx} name="customer_email" label="E-mail" type="email" required autoComplete="email" />
        <TextField ctx={ctx} name="customer_name" label="Name" autoComplete="name" />
        {attachedFields(checkout).length > 0 ? <h2>A few more details</h2> : null}
        {attachedFields(checkout).map((attached) => (
          <CustomField key={customFieldName(attached.custom_field.slug)} ctx={ctx} attached={attached} />
        ))}
        <h2>Billing</h2>
        <BillingFields ctx={ctx} modes={checkout.billing_address_fields} countries={props.countries} live={hydrated} />
        {checkout.allow_discount_codes ? (
          <div className={errors.has('discount_code') ? 'field invalid' : 'field'}>
            <label htmlFor="discount_code">Discount code</label>
            <div className="inline-form">
              <input
                id="discount_code"
                name="discount_code"
                type="text"
                autoComplete="off"
                defaultValue={ctx.value('discount_code')}
              />
              <button type="submit" name="action" value="apply" formNoValidate>
                Apply
              </button>
            </div>
            {checkout.discount ? (
              <p className="help">
                {checkout.discount.name} applied.{' '}
                <button type="submit" className="link" name="action" value="remove_discount" formNoValidate>
                  Remove
                </button>
              </p>
            ) : null}
            <Errors ctx={ctx} name="discount_code" />
          </div>
        ) : null}
        {checkout.is_payment_form_required ? (
          <>
            <h2>Payment</h2>
            <CardField ctx={ctx} />
          </>
        ) : null}
        <input type="hidden" name="shown_total" value={String(checkout.total_amount)} />
        <p className="note">
          Fields marked <Required /> are required.
        </p>
        <button type="submit" className="primary" name="action" value="pay">
          {checkout.is_payment_form_required
            ? `Pay ${formatMoney(checkout.total_amount, checkout.currency)}`
            : 'Complete order'}
        </button>
      </form>
    </main>
  );
}
