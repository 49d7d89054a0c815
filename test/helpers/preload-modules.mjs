/**
 * Loaded into every test process before any module hook: package.json `tap.test-env` puts it in
 * NODE_OPTIONS, whose `--import`s run before the command line's. Every module loaded once a hook is
 * registered (tap's mock and processinfo loaders, tsx) costs a round trip to the hooks thread or tsx's
 * require hook; TypeBox's ESM build alone is 247 small files, and fastify with the packages around it ~290
 * CommonJS files. Loaded here first, they are in the module caches already when dictum's TypeScript imports
 * them: about half a second of CPU less per test process (~190 of them). Only what building the app loads:
 * what dictum loads at first use (Swagger UI, ws, fast-glob) stays out, or test/http/deferred-modules.test.ts
 * would find it loaded. Plain JavaScript, as tsx is not loaded yet; test/helpers/untracked-children.ts
 * keeps it out of the processes the tests start.
 */
await import('@sinclair/typebox')
await import('@sinclair/typebox/value')
await import('@sinclair/typebox/compiler')
await Promise.all(
  ['fastify', 'fastify-plugin', '@fastify/multipart', 'awilix/browser', 'better-sqlite3'].map(
    (name) => import(name),
  ),
)
