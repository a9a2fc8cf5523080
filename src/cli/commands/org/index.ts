import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

const ORG = '<id|slug>';

export function registerOrgCommands(program: Command): void {
  const org = program.command('org').description('create and manage organizations, their members and invitations');

  withJson(
    org
      .command('create')
      .description('create an organization (it becomes the active one unless --keep-active) and print its id')
      .requiredOption('--name <name>', 'display name')
      .requiredOption('--slug <slug>', 'unique slug used in URLs and commands')
      .option('--logo <url>', 'logo URL')
      .option('--if-not-exists', 'succeed without changes when one of your organizations already has this slug')
      .option('--keep-active', 'leave the active organization as it is (for scripts that share a session)'),
  ).action(lazy(async () => (await import('./create.js')).run));
  withJson(org.command('list').description('list your organizations')).action(
    lazy(async () => (await import('./list.js')).run),
  );
  withJson(org.command('use').description('make an organization the active one').argument(ORG)).action(
    lazy(async () => (await import('./use.js')).run),
  );
  withJson(
    org
      .command('show')
      .description('show an organization with its members (default: the active one)')
      .argument(`[${ORG}]`),
  ).action(lazy(async () => (await import('./show.js')).run));
  withJson(
    org
      .command('update')
      .description('change an organization (default: the active one)')
      .argument(`[${ORG}]`)
      .option('--name <name>', 'new name')
      .option('--slug <slug>', 'new slug')
      .option('--logo <url>', 'new logo URL'),
  ).action(lazy(async () => (await import('./update.js')).run));
  withJson(
    org
      .command('delete')
      .description('delete an organization for good')
      .argument(ORG)
      .option('--yes', 'do not ask for confirmation (needed without a terminal)'),
  ).action(lazy(async () => (await import('./delete.js')).run));
  withJson(
    org.command('leave').description('leave an organization (default: the active one)').argument(`[${ORG}]`),
  ).action(lazy(async () => (await import('./leave.js')).run));

  // A screen, not data: no --json (the hint it prints without a terminal names the commands that have it).
  org
    .command('dashboard')
    .description(
      'interactive screen of an organization: members and roles, teams, pending invitations (needs a terminal)',
    )
    .option('--org <id|slug>', 'organization (default: the active one)')
    .action(lazy(async () => (await import('./dashboard.js')).run));

  const members = org
    .command('members')
    .description('list members and change their roles (to add someone, use `till org invite`)');
  withJson(
    members
      .command('list')
      .description('list members')
      .option('--org <id|slug>', 'organization (default: the active one)'),
  ).action(lazy(async () => (await import('./members-list.js')).run));
  withJson(
    members
      .command('remove')
      .description('remove a member')
      .argument('<member>', 'member id or e-mail')
      .option('--org <id|slug>', 'organization (default: the active one)'),
  ).action(lazy(async () => (await import('./members-remove.js')).run));
  withJson(
    members
      .command('role')
      .description("change a member's role")
      .argument('<member>', 'member id or e-mail')
      .argument('<role>', 'member, admin or owner')
      .option('--org <id|slug>', 'organization (default: the active one)'),
  ).action(lazy(async () => (await import('./members-role.js')).run));

  withJson(
    org
      .command('invite')
      .description('invite someone by e-mail (the only way to add a member over HTTP) and print the invitation id')
      .argument('<email>')
      .requiredOption('--role <role>', 'member, admin or owner')
      .option('--org <id|slug>', 'organization (default: the active one)')
      .option(
        '--team <id|name>',
        'a team the invitee joins on accepting (repeatable; needs TILL_ORG_TEAMS=on)',
        (value: string, previous: string[] = []) => [...previous, value],
      )
      .option('--if-not-exists', 'succeed without changes when the address is already invited or a member'),
  ).action(lazy(async () => (await import('./invite.js')).run));
  withJson(
    org
      .command('invitations')
      .description("list an organization's invitations, or with --mine those sent to you")
      .option('--org <id|slug>', 'organization (default: the active one)')
      .option('--mine', 'list invitations addressed to you instead'),
  ).action(lazy(async () => (await import('./invitations.js')).run));
  for (const [name, description] of [
    ['accept', 'accept an invitation and join its organization'],
    ['reject', 'reject an invitation sent to you'],
    ['cancel', 'cancel an invitation you sent'],
  ] as const) {
    withJson(org.command(name).description(description).argument('<invitation id>')).action(
      lazy(async () => (await import(`./${name}.js`)).run),
    );
  }
}
