import type { AuthApi } from './route.js';

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );
}

export function pageRoutes(api: AuthApi): void {
  api.route({ method: 'get', path: '/ok', caller: 'public' }, () => ({ ok: true }));

  // Where redirect flows land when something went wrong and no errorCallbackURL was given.
  api.route({ method: 'get', path: '/error', caller: 'public' }, ({ ctx }) => {
    const raw = typeof ctx.query.error === 'string' ? ctx.query.error : '';
    const code = /^[A-Za-z0-9_'-]+$/.test(raw) ? raw : 'UNKNOWN';
    const description =
      typeof ctx.query.error_description === 'string' ? ctx.query.error_description.slice(0, 500) : '';
    const home = new URL(api.deps.core.config.baseUrl).origin + '/';
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in error</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#f2f2f2;padding:.1rem .35rem;border-radius:4px}a{color:#0b57d0}</style></head>
<body>
<h1>Something went wrong</h1>
<p>Error code: <code>${escapeHtml(code)}</code></p>
${description ? `<p>${escapeHtml(description)}</p>` : ''}
<p><a href="${escapeHtml(home)}">Return to Application</a></p>
</body>
</html>
`;
    return undefined;
  });
}
