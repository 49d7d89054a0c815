/**
 * dictum's floors (docs/architecture.md), checked by `npm run lint:deps` (and so by `npm run lint` and CI):
 * no import circle, type-only imports included; no import from a floor to one above it; engines and
 * providers reach dictum only through sdk/plugin.ts; only the server's list of features imports routes/.
 */

/** Top to bottom. A folder may import its own floor and the floors below, never one above. */
const FLOORS = [
  { name: 'front ends', folders: ['bin', 'cli'] },
  { name: 'the process', folders: ['server'] },
  { name: 'adapters', folders: ['routes', 'wyoming'] },
  { name: 'the HTTP shell', folders: ['http'] },
  { name: 'services on the domain', folders: ['live', 'jobs'] },
  {
    name: 'the domain',
    folders: [
      'dictation',
      'transcription',
      'dictionary',
      'history',
      'learning',
      'postprocess',
      'settings',
      'models',
    ],
  },
  { name: 'plugins', folders: ['engines', 'providers'] },
  { name: 'the public SDK', folders: ['sdk'] },
  { name: 'media', folders: ['audio', 'vad', 'text'] },
  { name: 'the kernel', folders: ['kernel'] },
  { name: 'the ground', folders: ['config', 'storage', 'errors', 'lib'] },
]

const under = (folders) => `^(${folders.join('|')})/`

const upward = FLOORS.slice(1).map((floor, index) => ({
  name: `not-up: ${floor.name}`,
  comment: `${floor.folders.join(', ')} import(s) nothing of the floors above them`,
  severity: 'error',
  from: { path: under(floor.folders) },
  to: { path: under(FLOORS.slice(0, index + 1).flatMap((f) => f.folders)) },
}))

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle, type-only imports included (they are followed: tsPreCompilationDeps).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upward,
    {
      name: 'engines-through-sdk',
      comment: 'An engine imports its own folder and sdk/plugin.ts only, as a third-party engine does.',
      severity: 'error',
      from: { path: '^engines/([^/]+)/' },
      to: { dependencyTypes: ['local'], pathNot: ['^engines/$1/', '^sdk/plugin[.]ts$'] },
    },
    {
      name: 'providers-through-sdk',
      comment: 'A provider imports its own folder, providers/common and sdk/plugin.ts only.',
      severity: 'error',
      from: { path: '^providers/([^/]+)/' },
      to: { dependencyTypes: ['local'], pathNot: ['^providers/($1|common)/', '^sdk/plugin[.]ts$'] },
    },
    {
      name: 'engines-are-plugins',
      comment:
        "Nothing imports an engine: the kernel loads each as a plugin, and what dictum needs of one (its model's pronunciation dictionary…) comes through its definition.",
      severity: 'error',
      from: { pathNot: '^engines/' },
      to: { path: '^engines/' },
    },
    {
      name: 'routes-from-server',
      comment: "Only the server's list of features (and other route groups) import routes/.",
      severity: 'error',
      from: { pathNot: '^(server|routes)/' },
      to: { path: '^routes/' },
    },
  ],
  options: {
    includeOnly: under(FLOORS.flatMap((f) => f.folders)),
    exclude: { path: '^(node_modules|dist|test|bench|scripts|examples|contrib|docs|assets|web/app)/' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
}
