import type Router from '@koa/router';
import type { CoreContext } from '../../../core/context.js';
import { DomainError } from '../../../core/kernel/errors.js';
import { listMailsQuery } from '../../../core/mail/schemas.js';
import { mailSummaryToWire, mailToWire } from '../../../core/mail/wire.js';
import { validateInput } from '../auth/validation.js';

/**
 * The mail the daemon wrote, newest first, so an operator without SMTP (the outbox) can still hand out
 * verification and reset links. Bodies hold live links: only the admin token reaches them.
 */
export function adminMailRoutes(router: Router, core: CoreContext): void {
  router.get('/mails', async (ctx) => {
    const query = validateInput(listMailsQuery, ctx.query, 'query');
    const mails = await core.mail.list(query);
    ctx.body = { mails: mails.map(mailSummaryToWire) };
  });

  router.get('/mails/:id', async (ctx) => {
    const mail = await core.mail.get(ctx.params.id ?? '');
    if (!mail) throw new DomainError(404, 'NOT_FOUND', 'Mail not found');
    ctx.body = mailToWire(mail);
  });
}
