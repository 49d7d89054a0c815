/**
 * Loaded into every test process (package.json `tap.node-arg`): the processes a test starts run without
 * tap's process tracking. tap loads @tapjs/processinfo into every child process (through NODE_OPTIONS and a
 * spawn hook), which adds a module-load hook and, at exit, a source-map walk over every loaded file: about
 * 0.25 s of CPU per process, and the tests start hundreds (CLI runs, services, engine hosts, workers). It
 * feeds tap's coverage, which is off here. The test process itself stays tracked. The test processes'
 * module preload (test/helpers/preload-modules.mjs, a path relative to the repo) is left out of them too.
 */
import path from 'node:path'

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

/**
 * `DICTUM_TEST_CHILD_LOG=FILE`: each test file that starts a child process appends one line to FILE: the
 * test file and the child's command, once per file and command. How the suite counts the test files that
 * start processes (issue 26); off unless set. In a group's process (test/helpers/groups.ts) the test file
 * is the first one on the call stack (with its async part), else the group's.
 */
const childLog = process.env.DICTUM_TEST_CHILD_LOG
if (childLog !== undefined) {
  const { ChildProcess } = await import('node:child_process')
  const { appendFileSync } = await import('node:fs')
  const { basename } = await import('node:path')
  const seen = new Set<string>()
  // ChildProcess.prototype.spawn (undocumented, so untyped) is what spawn, execFile, exec and fork call.
  const prototype = ChildProcess.prototype as unknown as { spawn: (options: { file: string }) => unknown }
  const spawnChild = prototype.spawn
  const testFileOnStack = (): string | undefined => {
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 200
    const stack = new Error().stack ?? ''
    Error.stackTraceLimit = limit
    return /(test\/(?!groups\/|helpers\/)[\w./-]+\.test\.ts)/u.exec(stack)?.[1]
  }
  prototype.spawn = function (this: unknown, options) {
    const file = testFileOnStack() ?? path.relative(process.cwd(), process.argv[1] ?? '')
    const line = `${file} ${basename(String(options.file))}`
    if (!seen.has(line)) {
      seen.add(line)
      appendFileSync(childLog, `${line}\n`)
    }
    return spawnChild.call(this, options)
  }
}

/**
 * `DICTUM_TEST_CPU_LOG=FILE`: each test process appends, at exit, its test file and the CPU seconds it
 * used with the child processes it waited for (user + system, from /proc: Linux only). CPU seconds are the
 * figure of a test's cost that survives a busy machine, where wall-clock times do not.
 */
const cpuLog = process.env.DICTUM_TEST_CPU_LOG
if (cpuLog !== undefined) {
  const { appendFileSync, readFileSync } = await import('node:fs')
  process.once('exit', () => {
    // /proc/self/stat: fields 14-17 (utime, stime, cutime, cstime) in clock ticks, after the ")" of the name.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? []
    const ticks = fields.slice(11, 15).map(Number)
    const seconds = (i: number) => (ticks[i] ?? 0) / 100
    const file = path.relative(process.cwd(), process.argv[1] ?? '')
    appendFileSync(
      cpuLog,
      `${file} ${(seconds(0) + seconds(1)).toFixed(2)} ${(seconds(2) + seconds(3)).toFixed(2)}\n`,
    )
  })
}

/** `DICTUM_TEST_CPU_TRACE=FILE`: the CPU seconds of each root test (test/helpers/cpu-trace.ts). */
const cpuTrace = process.env.DICTUM_TEST_CPU_TRACE
if (cpuTrace !== undefined) {
  const { traceCpuPerRootTest } = await import('./cpu-trace.ts')
  traceCpuPerRootTest(cpuTrace)
}
