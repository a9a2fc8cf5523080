import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll } from 'vitest';

/** Debian's chromium, or TILL_CHROMIUM. Never skipped: without a browser a suite fails and says what to do. */
function chromiumPath(): string {
  const path = process.env.TILL_CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `Chromium not found at ${path}. Install it with \`apt-get install -y chromium\` (Debian) or point TILL_CHROMIUM at a Chromium binary.`,
    );
  }
  return path;
}

/**
 * A Chromium for the suite, launched by the first test that needs it (so a missing Chromium fails each test rather
 * than skipping it) and closed after the suite.
 */
export function useBrowser(): () => Promise<Browser> {
  let launched: Promise<Browser> | undefined;
  afterAll(async () => {
    if (launched) await (await launched.catch(() => null))?.close();
  });
  // --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
  return () =>
    (launched ??= chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] }));
}

/**
 * What the page's console reported that a working page never does: any error, such as a script or style its CSP
 * refused or a React hydration mismatch (React then throws the server's markup away, which the buyer would see).
 */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    // Answers with an error status are logged too (the favicon's 404, a refused discount code's 422): those are
    // the page working; the bundles' own answers are checked below.
    if (text.startsWith('Failed to load resource')) return;
    // Production React reports a mismatch as "Minified React error #418" through console.error.
    if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(text)) problems.push(text);
  });
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/assets/') && response.status() !== 200)
      problems.push(`${response.url()} answered ${response.status()}`);
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}
