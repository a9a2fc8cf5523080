import { render } from 'ink';
import { CliError, EXIT } from '../../errors.js';
import { ProductForm, type ProductFormProps, type ProductFormValues } from './form.js';

export { ProductForm } from './form.js';
export type { ProductFormValues } from './form.js';

/** Asks at the terminal for what the flags left out; Esc cancels like Ctrl-C at a prompt (exit 2). */
export async function askProduct(props: Omit<ProductFormProps, 'onSubmit' | 'onCancel'>): Promise<ProductFormValues> {
  let result: ProductFormValues | null = null;
  const instance = render(
    <ProductForm
      {...props}
      onSubmit={(values) => {
        result = values;
        instance.unmount();
      }}
      onCancel={() => instance.unmount()}
    />,
    // The form goes to stderr: stdout carries only the new product's id, as in a non-interactive run.
    { stdout: process.stderr },
  );
  await instance.waitUntilExit();
  if (!result) throw new CliError('cancelled', EXIT.usage);
  return result;
}
