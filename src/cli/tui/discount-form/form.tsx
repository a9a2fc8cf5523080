import { Box, Text, useInput } from 'ink';
import { useReducer, useRef } from 'react';
import {
  DURATIONS,
  parseAmount,
  parseCount,
  parseCurrency,
  parsePercent,
  type DiscountDraft,
} from '../../commands/discounts/shared.js';

/** One question: typed text, or a pick from a few options with the arrow keys. */
interface Step {
  key: keyof DiscountDraft | 'kind';
  label: string;
  options?: readonly string[];
  initial?: string;
  check?: (text: string) => string | undefined;
}

const errorOf = (parsed: { error: string } | { value: unknown }) =>
  'error' in parsed ? parsed.error.replace(/^--\S+ takes/, 'Enter') : undefined;

/** The next thing the draft lacks, or null when it is complete. `kind` is the form's own "percent or amount?". */
export function nextStep(draft: DiscountDraft, kind: 'percent' | 'amount' | undefined): Step | null {
  if (!draft.name)
    return {
      key: 'name',
      label: 'Name customers see',
      check: (text) => (text.trim() ? undefined : 'The name cannot be empty'),
    };
  if (draft.percent === undefined && draft.amount === undefined) {
    if (!kind) return { key: 'kind', label: 'Percentage or fixed amount off', options: ['percent', 'amount'] };
    if (kind === 'percent')
      return { key: 'percent', label: 'Percent off (e.g. 25 or 12.5)', check: (text) => errorOf(parsePercent(text)) };
    return {
      key: 'amount',
      label: 'Amount off in minor units (e.g. 500 for $5.00)',
      check: (text) => errorOf(parseAmount(text)),
    };
  }
  if (draft.amount !== undefined && draft.currency === undefined)
    return { key: 'currency', label: 'Currency', initial: 'usd', check: (text) => errorOf(parseCurrency(text)) };
  if (!draft.duration) return { key: 'duration', label: 'How long it applies to a subscription', options: DURATIONS };
  if (draft.duration === 'repeating' && draft.months === undefined)
    return { key: 'months', label: 'For how many months', check: (text) => errorOf(parseCount('--months', text, 999)) };
  return null;
}

export interface DiscountFormProps {
  initial: DiscountDraft;
  onSubmit(draft: DiscountDraft): void;
  onCancel(): void;
}

/** Asks, one at a time, for the fields `till discounts create` was not given. Esc or Ctrl+C cancels. */
export function DiscountForm({ initial, onSubmit, onCancel }: DiscountFormProps) {
  // Kept in a ref, not in state: keys typed or pasted faster than React renders must each see the previous one's
  // effect, or an Enter right after typing would read the text as it was before.
  const state = useRef({
    draft: initial,
    kind: undefined as 'percent' | 'amount' | undefined,
    text: nextStep(initial, undefined)?.initial ?? '',
    choice: 0,
    error: undefined as string | undefined,
    done: false,
  });
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const current = state.current;
  const step = nextStep(current.draft, current.kind);

  const answer = (value: string) => {
    const active = nextStep(current.draft, current.kind);
    if (!active) return;
    if (active.key === 'kind') current.kind = value as 'percent' | 'amount';
    else current.draft = { ...current.draft, [active.key]: value.trim() };
    const following = nextStep(current.draft, current.kind);
    Object.assign(current, { text: following?.initial ?? '', choice: 0, error: undefined });
    if (!following) {
      current.done = true;
      onSubmit(current.draft);
    }
  };

  useInput((input, key) => {
    const active = nextStep(current.draft, current.kind);
    if (current.done || !active) return;
    if (key.escape || (key.ctrl && input === 'c')) {
      current.done = true;
      onCancel();
    } else if (active.options) {
      const count = active.options.length;
      if (key.upArrow || key.leftArrow) current.choice = (current.choice + count - 1) % count;
      else if (key.downArrow || key.rightArrow || key.tab) current.choice = (current.choice + 1) % count;
      else if (key.return) answer(active.options[current.choice]!);
    } else if (key.return) {
      confirm();
    } else if (key.backspace || key.delete) {
      current.text = Array.from(current.text).slice(0, -1).join('');
    } else if (input && !key.ctrl && !key.meta) {
      // A paste arrives as one chunk, line breaks included: each one confirms what came before it.
      const [first, ...rest] = input.split(/\r\n|\r|\n/);
      current.text += first;
      for (const line of rest) {
        if (!confirm() || current.done || nextStep(current.draft, current.kind)?.options) break;
        current.text += line;
      }
    }
    rerender();
  });

  /** Enter on a text question: the answer if it passes its check, else the check's message. */
  function confirm(): boolean {
    const active = nextStep(current.draft, current.kind);
    if (!active || active.options) return false;
    const problem = active.check?.(current.text);
    if (problem) current.error = problem;
    else answer(current.text);
    return !problem;
  }

  const { draft, text, choice, error } = current;
  if (!step) return <Text color="green">Creating the discount…</Text>;
  return (
    <Box flexDirection="column">
      {draft.name ? <Text dimColor>Discount: {draft.name}</Text> : null}
      <Box>
        <Text bold>{step.label}: </Text>
        {step.options ? (
          step.options.map((option, index) => (
            <Text key={option} inverse={index === choice}>
              {` ${option} `}
            </Text>
          ))
        ) : (
          <Text>
            {text}
            <Text inverse> </Text>
          </Text>
        )}
      </Box>
      {error ? <Text color="red">{error}</Text> : null}
      <Text dimColor>
        {step.options ? '←/→ to choose, Enter to confirm, Esc to cancel' : 'Enter to confirm, Esc to cancel'}
      </Text>
    </Box>
  );
}
