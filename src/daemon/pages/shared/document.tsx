import type { ReactElement } from 'react';
import { renderToStaticMarkup, renderToString } from 'react-dom/server';
import { CHECKOUT_CSS, CHECKOUT_SCRIPT } from '../checkout/styles.js';
import { bundleUrl, type PageBundle } from './assets.js';
import { APP_ID, PROPS_ID } from './ids.js';

/** JSON inside a <script> element: `<` escaped so no text in it can close the element or open a comment. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * A hosted page that React hydrates in the browser. The app is rendered with renderToString (its text-boundary
 * markers are what hydration matches against) inside a static shell; its props travel as a JSON data block (never
 * executed, so outside the CSP's reach) and the bundle loads under the response's nonce. Without JavaScript, or
 * without a built bundle, the markup is the whole page and its forms work as plain HTML.
 */
export function renderHydratedPage(options: {
  title: string;
  nonce: string;
  bundle: PageBundle;
  props: unknown;
  app: ReactElement;
}): string {
  const src = bundleUrl(options.bundle);
  const shell = (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{options.title}</title>
        <style nonce={options.nonce} dangerouslySetInnerHTML={{ __html: CHECKOUT_CSS }} />
      </head>
      <body>
        <div id={APP_ID} dangerouslySetInnerHTML={{ __html: renderToString(options.app) }} />
        <script nonce={options.nonce} dangerouslySetInnerHTML={{ __html: CHECKOUT_SCRIPT }} />
        {src ? (
          <>
            <script
              type="application/json"
              id={PROPS_ID}
              dangerouslySetInnerHTML={{ __html: scriptJson(options.props) }}
            />
            <script type="module" nonce={options.nonce} src={src} />
          </>
        ) : null}
      </body>
    </html>
  );
  return `<!doctype html>${renderToStaticMarkup(shell)}`;
}
