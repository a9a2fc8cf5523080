import { render } from 'ink';
import type { DiscountDraft } from '../../commands/discounts/shared.js';
import { DiscountForm } from './form.js';

export { DiscountForm, nextStep } from './form.js';

/** Asks at the terminal for what the draft lacks; null when the person cancels. The caller has checked for a terminal. */
export async function askForDiscount(initial: DiscountDraft): Promise<DiscountDraft | null> {
  let result: DiscountDraft | null = null;
  // Ctrl+C is the form's to handle, so it cancels with the usual exit code instead of killing the process.
  const instance = render(
    <DiscountForm
      initial={initial}
      onSubmit={(draft) => {
        result = draft;
        instance.unmount();
      }}
      onCancel={() => instance.unmount()}
    />,
    { exitOnCtrlC: false, stdout: process.stderr },
  );
  await instance.waitUntilExit();
  return result;
}
