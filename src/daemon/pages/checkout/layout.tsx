import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { CHECKOUT_CSS, CHECKOUT_SCRIPT } from './styles.js';

/**
 * The HTML document around every checkout page. Style and script are constants (no buyer or merchant text), inlined
 * under the response's CSP nonce; everything else is React elements, so every text the merchant or buyer wrote is
 * escaped by React.
 */
export function Document({ title, nonce, children }: { title: string; nonce: string; children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{title}</title>
        <style nonce={nonce} dangerouslySetInnerHTML={{ __html: CHECKOUT_CSS }} />
      </head>
      <body>
        {children}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: CHECKOUT_SCRIPT }} />
      </body>
    </html>
  );
}

export function renderDocument(element: ReactNode): string {
  return `<!doctype html>${renderToStaticMarkup(element)}`;
}

/** A page that only says something: expired, already paid, not found, an error. */
export function MessagePage({
  nonce,
  title,
  heading,
  children,
}: {
  nonce: string;
  title: string;
  heading: string;
  children?: ReactNode;
}) {
  return (
    <Document title={title} nonce={nonce}>
      <main className="narrow">
        <div className="card">
          <h1>{heading}</h1>
          {children}
        </div>
      </main>
    </Document>
  );
}
