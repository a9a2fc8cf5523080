import type { ReactNode } from 'react';

/** A form posting one action back to the portal. */
export function ActionForm(props: {
  base: string;
  action: string;
  fields?: Record<string, string>;
  children: ReactNode;
  className?: string;
}) {
  return (
    <form method="post" action={props.base} className={props.className ?? 'inline-action'}>
      <input type="hidden" name="action" value={props.action} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {props.children}
    </form>
  );
}
