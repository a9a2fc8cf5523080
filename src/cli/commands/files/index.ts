import { Option, type Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerFilesCommands(program: Command): void {
  const files = program
    .command('files')
    .description("upload, list and delete the organization's files (downloadables, product medias, avatars)");

  withJson(
    files
      .command('upload')
      .description('upload a file in 8 MiB parts, checking every part and the whole with SHA-256, and print its id')
      .argument('<path>', 'the file to upload')
      .addOption(
        new Option('--service <service>', 'what the file is for')
          .choices(['downloadable', 'product_media', 'organization_avatar'])
          .default('downloadable'),
      )
      .option('--name <name>', 'name shown to customers (default: the file name)')
      .option('--mime-type <type>', 'MIME type (default: guessed from the extension)')
      .option('--file-version <version>', "the file's version label, e.g. 1.2")
      .option('--org <id|slug>', 'organization (default: the active one, or the token’s)'),
  )
    .addHelpText(
      'after',
      `
Product medias and avatars must be images (jpeg, png, gif, webp, svg) of at most 10 MB and 1 MB. A progress
bar is drawn on stderr when it is a terminal. Without --json only the new file's id goes to stdout.`,
    )
    .action(lazy(async () => (await import('./upload.js')).run));

  withJson(
    files
      .command('list')
      .description('list uploaded files')
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours'),
  ).action(lazy(async () => (await import('./list.js')).run));

  withJson(
    files
      .command('delete')
      .description('delete a file and its bytes (refused while a product or benefit uses it)')
      .argument('<id>', 'file id from `till files list`'),
  ).action(lazy(async () => (await import('./delete.js')).run));
}
