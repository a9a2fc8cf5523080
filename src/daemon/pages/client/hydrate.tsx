/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import type { ComponentType } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { APP_ID, PROPS_ID } from '../shared/ids.js';

/** Hydrates the server-rendered app of a hosted page with the props the server rendered it from. */
export function hydratePage<P extends object>(View: ComponentType<P>): void {
  const root = document.getElementById(APP_ID);
  const data = document.getElementById(PROPS_ID);
  if (!root || !data?.textContent) return;
  const props = JSON.parse(data.textContent) as P;
  hydrateRoot(root, <View {...props} />);
}
