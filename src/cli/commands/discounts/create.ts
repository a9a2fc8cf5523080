import type { DiscountWire } from '../../../core/discounts/schemas.js';
import type { Invocation } from '../../action.js';
import { call, createIn, signedIn } from '../../context.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { info, printJson, printLine } from '../../output.js';
import { describeDiscount, discountBody, missingFlags, type DiscountDraft } from './shared.js';

interface Options extends DiscountDraft {
  org?: string;
  quiet?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  let draft: DiscountDraft = { ...opts };
  const missing = missingFlags(draft);
  if (missing.length > 0) {
    // Only a person at a terminal can be asked; a script gets a usage error naming what to add.
    if (!process.stdin.isTTY || !process.stdout.isTTY)
      throw new UsageError(`missing ${missing.join(', ')} (run in a terminal to be asked for them)`);
    // Checked before the form so a bad flag is reported at once, not after the questions.
    discountBody(draft);
    const { askForDiscount } = await import('../../tui/discount-form/index.js');
    const answered = await askForDiscount(draft);
    if (!answered) throw new CliError('cancelled', EXIT.usage);
    draft = answered;
  }
  const body = discountBody(draft);
  const target = signedIn(globals);
  await createIn(target, body, opts);
  const created = await call<DiscountWire>(target, 'POST', '/v1/discounts/', { body });
  if (opts.json) {
    printJson(created);
    return;
  }
  printLine(created.id);
  if (opts.quiet) return;
  info(
    `Created discount "${created.name}"${created.code ? ` (code ${created.code})` : ''}: ${describeDiscount(created)}.`,
  );
}
