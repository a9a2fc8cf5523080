import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProductFormValues } from '../../src/cli/tui/product-form/form.js';
import { ProductForm } from '../../src/cli/tui/product-form/form.js';
import { eventually } from '../helpers/eventually.js';

const ENTER = '\r';
const DOWN = '\u001B[B';
const UP = '\u001B[A';
const ESC = '\u001B';
const BACKSPACE = '\u007F';

afterEach(() => cleanup());

/** The form as `till products create` shows it, with what it submits or whether it was cancelled. */
function form(props: { name?: string; price?: ProductFormValues['price'] } = {}) {
  const outcome: { submitted: ProductFormValues | null; cancelled: boolean } = { submitted: null, cancelled: false };
  const screen = render(
    <ProductForm
      {...props}
      currency="usd"
      onSubmit={(values) => {
        outcome.submitted = values;
      }}
      onCancel={() => {
        outcome.cancelled = true;
      }}
    />,
  );
  const frame = () => screen.lastFrame() ?? '';
  /** Types `keys`, then waits for Ink to render a frame that passes `test` (failing with the last frame if none does). */
  const press = async (keys: string, test: (frame: string) => boolean, what: string) => {
    screen.stdin.write(keys);
    const passed = await eventually(async () => test(frame()), true);
    expect(passed, `expected ${what}; last frame:\n${frame()}`).toBe(true);
  };
  return { frame, press, outcome };
}

describe('till products create: the Ink form for missing fields', () => {
  it('asks for the name, the kind of price and its amount, then submits them', async () => {
    const ui = form();
    expect(ui.frame()).toContain('New product');
    expect(ui.frame()).toContain('Name:');
    await ui.press('Cookbookk', (f) => f.includes('Cookbookk'), 'the typed name');
    await ui.press(BACKSPACE, (f) => f.includes('Cookbook') && !f.includes('Cookbookk'), 'the last letter erased');
    await ui.press(
      ENTER,
      (f) => f.includes('Fixed price') && f.includes('Pay what you want') && f.includes('Free'),
      'the price choices',
    );
    expect(ui.frame()).toMatch(/› Fixed price/);
    await ui.press(DOWN, (f) => /› Pay what you want/.test(f), 'pay what you want selected');
    await ui.press(UP, (f) => /› Fixed price/.test(f), 'fixed price selected again');
    await ui.press(ENTER, (f) => f.includes('Price in cents (USD)'), 'the amount prompt');
    await ui.press('15', (f) => f.includes('(USD): 15'), 'the first digits');
    await ui.press('x', (f) => f.includes('whole numbers of cents'), 'digits only');
    await ui.press('00', (f) => f.includes('1500') && !f.includes('whole numbers'), 'the amount');
    await ui.press(ENTER, () => ui.outcome.submitted !== null, 'the submission');
    expect(ui.outcome.submitted).toEqual({ name: 'Cookbook', price: { kind: 'fixed', amount: 1500 } });
  });

  it('refuses a name that is too short and a fixed price without an amount', async () => {
    const ui = form();
    await ui.press('ab', (f) => f.includes('ab'), 'the name');
    await ui.press(ENTER, (f) => f.includes('3 to 64 characters'), 'the name rule');
    await ui.press('c', (f) => f.includes('abc') && !f.includes('3 to 64'), 'a longer name');
    await ui.press(ENTER, (f) => f.includes('Fixed price'), 'the price choices');
    await ui.press(ENTER, (f) => f.includes('Price in cents'), 'the amount prompt');
    await ui.press(ENTER, (f) => f.includes('e.g. 1500 for 15.00'), 'the amount rule');
    expect(ui.outcome.submitted).toBeNull();
  });

  it('asks only for the price when the name was given, and a free price needs no amount', async () => {
    const ui = form({ name: 'Sampler' });
    expect(ui.frame()).not.toContain('Name:');
    await ui.press(DOWN + DOWN, (f) => /› Free/.test(f), 'free selected');
    await ui.press(ENTER, () => ui.outcome.submitted !== null, 'the submission');
    expect(ui.outcome.submitted).toEqual({ name: 'Sampler', price: { kind: 'free' } });
  });

  it('takes an optional minimum for pay what you want', async () => {
    const ui = form({ name: 'Tip jar' });
    await ui.press(DOWN, (f) => /› Pay what you want/.test(f), 'pay what you want selected');
    await ui.press(ENTER, (f) => f.includes('Minimum in cents'), 'the minimum prompt');
    await ui.press(ENTER, () => ui.outcome.submitted !== null, 'the submission');
    expect(ui.outcome.submitted).toEqual({ name: 'Tip jar', price: { kind: 'custom' } });
  });

  it('asks only for the name when the price was given, and Esc cancels', async () => {
    const named = form({ price: { kind: 'fixed', amount: 900 } });
    await named.press('Poster', (f) => f.includes('Poster'), 'the name');
    await named.press(ENTER, () => named.outcome.submitted !== null, 'the submission');
    expect(named.outcome.submitted).toEqual({ name: 'Poster', price: { kind: 'fixed', amount: 900 } });

    const cancelled = form();
    await cancelled.press(ESC, () => cancelled.outcome.cancelled, 'the cancellation');
    expect(cancelled.outcome.submitted).toBeNull();
  });
});
