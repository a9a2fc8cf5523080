/**
 * Dependency rules for src (run by `npm run lint`). Each rule names the layering it protects; the layering itself
 * is described in ARCHITECTURE.md.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-daemon-or-cli',
      comment: 'src/core is the domain: it knows nothing of the HTTP daemon or the CLI that sit on top of it.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(daemon|cli)/' },
    },
    {
      name: 'daemon-imports-no-cli',
      comment: 'The daemon runs without the CLI; the CLI may start the daemon, not the other way round.',
      severity: 'error',
      from: { path: '^src/daemon/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'no-cycles-between-core-folders',
      comment:
        'Domain folders of src/core form a hierarchy: a cycle between two of them (type-only imports included) ' +
        'means neither can be read or changed alone.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/core/[^/]+' },
      to: { path: '^src/core/[^/]+', circular: true },
    },
    {
      name: 'database-through-its-entry-point',
      comment:
        'The database module (with the SQLite speed-ups in src/core/database/sqlite) is used only through ' +
        'src/core/database/index.ts, so its internals can change without touching callers.',
      severity: 'error',
      from: { pathNot: '^src/core/database/' },
      to: { path: '^src/core/database/', pathNot: '^src/core/database/index\\.ts$' },
    },
    {
      name: 'wires-are-pure',
      comment:
        'A wire turns rows in hand into the wire shape: it may name row types, but loads nothing (no database, ' +
        'repository, loader or service at run time).',
      severity: 'error',
      from: { path: '^src/core/[^/]+/wire\\.ts$' },
      to: {
        path: '^src/core/(database/|[^/]+/(repository|[a-z-]+-repository|loaders|service)\\.ts$)',
        dependencyTypesNot: ['type-only', 'type-import'],
      },
    },
    {
      name: 'schemas-import-no-repository',
      comment: 'Enums and wire shapes live in schemas; a schema never reaches for a repository, not even for a type.',
      severity: 'error',
      from: { path: '^src/core/[^/]+/schemas\\.ts$' },
      to: { path: '^src/core/(database/|[^/]+/(repository|[a-z-]+-repository|loaders|service)\\.ts$)' },
    },
    {
      name: 'core-knows-no-http-framework',
      comment: 'Services take plain inputs and an actor, never a Koa context; HTTP belongs to src/daemon.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '(^|/)node_modules/(koa|@koa/[^/]+)/' },
    },
    {
      name: 'cli-imports-only-schemas-and-types-from-core',
      comment:
        'The CLI talks to the daemon over HTTP: from core it may import schemas.ts/types.ts modules, types ' +
        '(import type) and the few pure helpers it shares with the daemon (the version, money formatting, webhook signing, the sandbox test cards, token ' +
        'scopes and key shapes, hashing); never services, repositories, loaders or the database.',
      severity: 'error',
      from: {
        path: '^src/cli/',
        pathNot:
          '^src/cli/commands/(daemon|migrate)/|^src/cli/commands/backup/restore\\.ts$|^src/cli/commands/admin/admin-token\\.ts$',
      },
      to: {
        path: '^src/core/',
        pathNot: [
          '/(schemas|types)\\.ts$',
          '^src/core/kernel/(version|crypto|money)\\.ts$',
          '^src/core/webhooks/signer\\.ts$',
          '^src/core/payments/test-cards\\.ts$',
          '^src/core/polar-api/scopes\\.ts$',
          '^src/core/api-keys/keys\\.ts$',
        ],
        dependencyTypesNot: ['type-only', 'type-import'],
      },
    },
    {
      name: 'cli-daemon-commands-start-the-daemon-only',
      comment:
        'The commands that start the daemon or migrate its database run it in-process: they may load its ' +
        'configuration, the database module and the daemon itself, but still no domain service or repository.',
      severity: 'error',
      from: {
        path: '^src/cli/commands/(daemon|migrate)/|^src/cli/commands/backup/restore\\.ts$|^src/cli/commands/admin/admin-token\\.ts$',
      },
      to: {
        path: '^src/core/[^/]+/(service|repository|[a-z-]+-repository|loaders)\\.ts$',
        dependencyTypesNot: ['type-only', 'type-import'],
      },
    },
    {
      name: 'cli-imports-no-database-driver',
      comment: 'Loading knex or a driver would slow every CLI command and means the CLI reaches past the daemon.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '(^|/)node_modules/(knex|pg|pg-[^/]+|sqlite3)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a cycle through `import type` still ties two folders together.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
