import { Box, Text, useInput } from 'ink';
import { useEffect, useReducer } from 'react';
import type { PriceChoice } from '../../commands/products/shared.js';

export interface ProductFormValues {
  name: string;
  price: PriceChoice;
}

export interface ProductFormProps {
  /** What the flags already gave; only the rest is asked. */
  name?: string;
  price?: PriceChoice;
  currency: string;
  onSubmit(values: ProductFormValues): void;
  onCancel(): void;
}

type Step = 'name' | 'pricing' | 'amount';

const KINDS: Array<{ kind: PriceChoice['kind']; label: string }> = [
  { kind: 'fixed', label: 'Fixed price' },
  { kind: 'custom', label: 'Pay what you want' },
  { kind: 'free', label: 'Free' },
];

interface State {
  steps: Step[];
  step: Step;
  name: string;
  kindIndex: number;
  amount: string;
  problem: string | null;
  given: PriceChoice | undefined;
  result: ProductFormValues | null;
  cancelled: boolean;
}

type Action =
  | { type: 'text'; text: string }
  | { type: 'erase' }
  | { type: 'move'; by: number }
  | { type: 'enter' }
  | { type: 'cancel' };

function nameProblem(name: string): string | null {
  const length = [...name.trim()].length;
  return length < 3 || length > 64 ? 'The name needs 3 to 64 characters.' : null;
}

/** The step after `state.step`, or the finished form when there is none (a free price needs no amount). */
function advance(state: State): State {
  const following = state.steps[state.steps.indexOf(state.step) + 1];
  const kind = KINDS[state.kindIndex]!.kind;
  if (following === 'amount' && kind === 'free')
    return { ...state, problem: null, result: { name: state.name.trim(), price: { kind: 'free' } } };
  if (following) return { ...state, problem: null, step: following };
  return { ...state, problem: null, result: { name: state.name.trim(), price: state.given! } };
}

// A reducer, not callbacks over rendered values: keys arriving faster than React renders all see the latest state.
function reduce(state: State, action: Action): State {
  if (state.result || state.cancelled) return state;
  switch (action.type) {
    case 'cancel':
      return { ...state, cancelled: true };
    case 'move':
      return state.step === 'pricing'
        ? { ...state, kindIndex: (state.kindIndex + action.by + KINDS.length) % KINDS.length }
        : state;
    case 'erase':
      if (state.step === 'name') return { ...state, name: Array.from(state.name).slice(0, -1).join('') };
      if (state.step === 'amount') return { ...state, amount: state.amount.slice(0, -1), problem: null };
      return state;
    case 'text':
      if (state.step === 'name') return { ...state, name: state.name + action.text, problem: null };
      if (state.step === 'amount')
        return /^\d+$/.test(action.text)
          ? { ...state, amount: state.amount + action.text, problem: null }
          : { ...state, problem: 'Amounts are whole numbers of cents.' };
      return state;
    case 'enter': {
      if (state.step === 'name') {
        const problem = nameProblem(state.name);
        return problem ? { ...state, problem } : advance(state);
      }
      if (state.step === 'pricing') return advance(state);
      const kind = KINDS[state.kindIndex]!.kind;
      if (kind === 'fixed' && state.amount === '')
        return { ...state, problem: 'Enter the price in cents, e.g. 1500 for 15.00.' };
      const price: PriceChoice =
        kind === 'fixed'
          ? { kind: 'fixed', amount: Number(state.amount) }
          : { kind: 'custom', ...(state.amount === '' ? {} : { minimum: Number(state.amount) }) };
      return { ...state, problem: null, result: { name: state.name.trim(), price } };
    }
  }
}

function initialState(props: ProductFormProps): State {
  const steps: Step[] = [
    ...(props.name === undefined ? (['name'] as const) : []),
    ...(props.price === undefined ? (['pricing', 'amount'] as const) : []),
  ];
  return {
    steps,
    step: steps[0] ?? 'name',
    name: props.name ?? '',
    kindIndex: 0,
    amount: '',
    problem: null,
    given: props.price,
    result: null,
    cancelled: false,
  };
}

/**
 * Asks for what `till products create` was not given: the name, then the kind of price and its amount. Enter
 * accepts a field, ↑/↓ choose the kind of price, Esc cancels.
 */
export function ProductForm(props: ProductFormProps) {
  const { currency, onSubmit, onCancel } = props;
  const [state, dispatch] = useReducer(reduce, props, initialState);
  const { step, name, kindIndex, amount, problem } = state;
  const kind = KINDS[kindIndex]!.kind;

  useEffect(() => {
    if (state.result) onSubmit(state.result);
    else if (state.cancelled) onCancel();
  }, [state.result, state.cancelled]);

  useInput((input, key) => {
    if (key.escape) dispatch({ type: 'cancel' });
    else if (key.upArrow) dispatch({ type: 'move', by: -1 });
    else if (key.downArrow) dispatch({ type: 'move', by: 1 });
    else if (key.return) dispatch({ type: 'enter' });
    else if (key.backspace || key.delete) dispatch({ type: 'erase' });
    else if (input && !key.ctrl && !key.meta) dispatch({ type: 'text', text: input });
  });

  return (
    <Box flexDirection="column">
      <Text bold>New product</Text>
      {state.steps.includes('name') ? (
        <Text>
          {'Name: '}
          <Text color={step === 'name' ? 'cyan' : undefined}>{name}</Text>
          {step === 'name' ? <Text inverse> </Text> : null}
        </Text>
      ) : null}
      {step === 'pricing' ? (
        <Box flexDirection="column">
          <Text>Price:</Text>
          {KINDS.map((option, index) => (
            <Text
              key={option.kind}
              color={index === kindIndex ? 'cyan' : undefined}
            >{`${index === kindIndex ? '›' : ' '} ${option.label}`}</Text>
          ))}
        </Box>
      ) : null}
      {step === 'amount' ? (
        <Text>
          {kind === 'fixed'
            ? `Price in cents (${currency.toUpperCase()}): `
            : `Minimum in cents (${currency.toUpperCase()}, empty for the smallest charge): `}
          <Text color="cyan">{amount}</Text>
          <Text inverse> </Text>
        </Text>
      ) : null}
      {problem ? <Text color="red">{problem}</Text> : null}
      <Text dimColor>{step === 'pricing' ? '↑/↓ choose · Enter next · Esc cancel' : 'Enter next · Esc cancel'}</Text>
    </Box>
  );
}
