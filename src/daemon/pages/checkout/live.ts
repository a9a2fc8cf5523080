import type { ChangeEvent, FormEvent, KeyboardEvent, RefObject } from 'react';
import { useRef, useState } from 'react';
import type { CheckoutPublicWire } from '../../../core/checkouts/schemas.js';
import { testCardByNumber } from '../../../core/payments/test-cards.js';
import type { FieldIssue } from '../../../core/polar-api/errors.js';
import type { FormValues } from './form.js';
import { fieldOf, readForm } from './form.js';

/**
 * The checkout page's behaviour once hydrated: what changes the price (product, amount, billing address, discount
 * code) is saved through the public `PATCH /v1/checkouts/client/{client_secret}` as the buyer types, and the totals,
 * tax and discount follow; its refusals show under their fields. Nothing here runs on the server, where these
 * handlers are never called, and the form still posts as a plain form.
 */

/** The fields whose change can move the total; the rest are saved when the buyer presses Pay. */
const PRICED = ['product_id', 'amount', 'customer_billing_address', 'discount_code'] as const;
// Typing pauses this long before a code or address is sent, so one request goes per pause, not per key.
const TYPING_PAUSE_MS = 400;

/** The page's props leave the client secret out; the address bar (`/checkout/<secret>`) has it. */
function clientSecret(): string {
  return window.location.pathname.split('/')[2] ?? '';
}

function formValues(form: HTMLFormElement): FormValues {
  const values: FormValues = {};
  for (const [name, value] of new FormData(form)) if (typeof value === 'string') values[name] = value;
  return values;
}

const isPricedField = (name: string) =>
  name === 'product_id' || name === 'amount' || name === 'discount_code' || name.startsWith('billing_');

/** Issues of the priced fields are replaced by each live update's answer; the others stay until the next post. */
function keepOthers(issues: FieldIssue[]): FieldIssue[] {
  return issues.filter((issue) => !isPricedField(fieldOf(issue.loc)));
}

export function useLiveCheckout(
  initial: CheckoutPublicWire,
  initialIssues: FieldIssue[],
  formRef: RefObject<HTMLFormElement | null>,
) {
  const [checkout, setCheckout] = useState(initial);
  const [issues, setIssues] = useState(initialIssues);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  // Answers can arrive out of order; only the latest request's answer is shown.
  const latest = useRef(0);
  const current = useRef(checkout);
  current.current = checkout;

  async function save(): Promise<void> {
    const form = formRef.current;
    if (!form) return;
    const read = readForm({ ...formValues(form), action: 'apply' }, current.current);
    const body: Record<string, unknown> = {};
    for (const key of PRICED) if (key in read.changes) body[key] = read.changes[key];
    const localIssues = read.issues.filter((issue) => isPricedField(fieldOf(issue.loc)));
    if (Object.keys(body).length === 0) {
      setIssues((previous) => [...keepOthers(previous), ...localIssues]);
      return;
    }
    const request = ++latest.current;
    try {
      const response = await fetch(`/v1/checkouts/client/${clientSecret()}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as unknown;
      if (request !== latest.current) return;
      if (response.ok) {
        setCheckout(answer as CheckoutPublicWire);
        setIssues((previous) => [...keepOthers(previous), ...localIssues]);
      } else if (response.status === 422) {
        const detail = (answer as { detail?: FieldIssue[] }).detail ?? [];
        setIssues((previous) => [...keepOthers(previous), ...localIssues, ...detail]);
      } else {
        const text = (answer as { detail?: unknown }).detail;
        const msg = typeof text === 'string' ? text : 'The totals could not be updated. Reload the page.';
        setIssues((previous) => [...keepOthers(previous), { loc: ['body'], msg, type: 'error' }]);
      }
    } catch {
      if (request !== latest.current) return;
      const msg = 'The totals could not be updated: the connection failed. Try again.';
      setIssues((previous) => [...keepOthers(previous), { loc: ['body'], msg, type: 'error' }]);
    }
  }

  function schedule(delay: number): void {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => void save(), delay);
  }

  return {
    checkout,
    issues,
    onChange(event: ChangeEvent<HTMLFormElement>) {
      const target = event.target as unknown as HTMLInputElement | HTMLSelectElement;
      if (!isPricedField(target.name)) return;
      // A pick (country, product) is sent at once; typed text after a pause.
      schedule(target.tagName === 'SELECT' || target.type === 'radio' ? 0 : TYPING_PAUSE_MS);
    },
    /** Enter in a field would submit with the first button (without JavaScript, "Update totals"): save instead. */
    onKeyDown(event: KeyboardEvent<HTMLFormElement>) {
      const target = event.target as HTMLElement;
      if (event.key !== 'Enter' || target.tagName !== 'INPUT') return;
      event.preventDefault();
      schedule(0);
    },
    /** A card that is not a sandbox test card is refused under its field before anything is sent. */
    onSubmit(event: FormEvent<HTMLFormElement>) {
      const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
      if (submitter?.value !== 'pay' || !checkout.is_payment_form_required) return;
      const card = (formRef.current?.elements.namedItem('card_number') as HTMLInputElement | null)?.value ?? '';
      const msg = !card.trim()
        ? 'Enter a card number.'
        : testCardByNumber(card)
          ? null
          : 'This is not a sandbox test card number. Use one of the test cards listed below the field.';
      if (!msg) return;
      event.preventDefault();
      setIssues((previous) => [
        ...previous.filter((issue) => fieldOf(issue.loc) !== 'card_number'),
        { loc: ['body', 'confirmation_token_id'], msg, type: 'value_error' },
      ]);
    },
  };
}
