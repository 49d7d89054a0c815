/**
 * Loaded into every test process (package.json `tap.node-arg`): the processes a test starts run without
 * tap's process tracking. tap loads @tapjs/processinfo into every child process (through NODE_OPTIONS and a
 * spawn hook), which adds a module-load hook and, at exit, a source-map walk over every loaded file: about
 * 0.25 s of CPU per process, and the tests start hundreds (CLI runs, services, engine hosts, workers). It
 * feeds tap's coverage, which is off here. The test process itself stays tracked. The test processes'
 * module preload (test/helpers/preload-modules.mjs, a path relative to the repo) is left out of them too.
 */
const SPAWN_HOOKS = Symbol.for('process-on-spawn@*:singletonId')
const hooks = (globalThis as unknown as Record<symbol, { listeners: unknown[] } | undefined>)[SPAWN_HOOKS]
if (hooks) hooks.listeners.length = 0
const options = process.env.NODE_OPTIONS
if (options !== undefined) {
  const kept = options
    .split(/\s+/u)
    .filter(
      (option) =>
        option !== '' && !option.includes('@tapjs/processinfo') && !option.includes('preload-modules.mjs'),
    )
    .join(' ')
  if (kept === '') delete process.env.NODE_OPTIONS
  else process.env.NODE_OPTIONS = kept
}
