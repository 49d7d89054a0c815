/** Builds a real app on a temp data dir for a test, and closes it on teardown. */
import path from 'node:path'
import type { Test } from 'tap'
import { resolveConfig } from '../../config/load.ts'
import type { DictumConfig } from '../../config/schema.ts'
import { type PocketsphinxOptions, resolveModelPaths } from '../../engines/pocketsphinx/options.ts'
import type { EngineDefinition, EngineInstance } from '../../kernel/contracts/engine.ts'
import { createEngineRunner } from '../../kernel/engine-runner/index.ts'
import type { EngineRunnerOptions } from '../../kernel/engine-runner/types.ts'
import { type BuildOptions, buildApp, type DictumApp } from '../../server/app.ts'
import { ConfigSchema } from '../../server/config-schema.ts'
import { listen } from './http.ts'
import { tempDir } from './temp-dir.ts'

/**
 * The built-in engines run in the test process unless a test asks for isolation (`runnerFactory`): the
 * engine's work is the same, without an engine host process (and its start-up) per app. Fixture engines
 * keep the isolation they declare: some of them crash, hang or leak on purpose.
 */
const INLINE_ENGINES = new Set(['pocketsphinx'])
/**
 * pocketsphinx in the apps of tests searches at most this many HMMs per frame: its documented lighter search
 * (docs/engines-pocketsphinx.md), 34–43 % less CPU per utterance than the default 30000 on the shared clips.
 * The apps' tests compare texts that went through the same engine (live against file, HTTP against the CLI,
 * one slot against several), not the search; the engine's own tests (test/engines/pocketsphinx/) keep its
 * defaults and check its accuracy.
 */
export const TEST_MAX_HMMS_PER_FRAME = 5000
export const inlineBuiltInEngines = (options: EngineRunnerOptions) => {
  if (!INLINE_ENGINES.has(options.engineId) || !options.definition) return createEngineRunner(options)
  const engineOptions = options.context.options as { maxHmmsPerFrame?: number }
  const maxHmmsPerFrame = Math.min(engineOptions.maxHmmsPerFrame ?? Infinity, TEST_MAX_HMMS_PER_FRAME)
  return createEngineRunner({
    ...options,
    isolation: 'none',
    definition: keptLoaded(options.definition),
    context: { ...options.context, options: { ...engineOptions, maxHmmsPerFrame } },
  })
}

/**
 * Loaded engine instances an app has closed, by options and model files, for the next app of this test
 * process that asks for the same: loading pocketsphinx's model costs ~0.5 s of CPU, and the suite builds
 * dozens of apps with it. A running service keeps one instance for all its requests too; what the apps'
 * tests check is the same either way. Kept until the process exits. The key is the resolved model files,
 * not the models folder: each app has its own data dir (so its own `<dataDir>/models`) while the model
 * is the system's, and a key on the folder never matched. A reused instance keeps the context of the app
 * that created it (its logger among them): a test that reads the engine's logs builds its own engine.
 */
const idleInstances = new Map<string, EngineInstance[]>()

function keptLoaded(definition: EngineDefinition): EngineDefinition {
  return {
    ...definition,
    async create(context) {
      const options = context.options as PocketsphinxOptions
      const key = JSON.stringify([options, resolveModelPaths(options, context.modelsDir)])
      const instance = idleInstances.get(key)?.pop() ?? (await definition.create(context))
      let loaded = false
      let closed = false
      const kept: EngineInstance = {
        load: async () => {
          await instance.load()
          loaded = true
        },
        transcribe: (request, signal) => instance.transcribe(request, signal),
        close: async () => {
          if (closed) return
          closed = true
          // One that never loaded (a missing model) is closed for good.
          if (!loaded) return instance.close()
          idleInstances.set(key, [...(idleInstances.get(key) ?? []), instance])
        },
      }
      if (instance.openStream) kept.openStream = (streamOptions) => instance.openStream!(streamOptions)
      return kept
    },
  }
}

export type ConfigOverrides = Record<string, unknown>

export const FIXTURES = path.resolve(import.meta.dirname, '../fixtures')
/** A third-party engine plugin (no native code) that tests select by default. */
export const FIXTURE_ENGINE = path.join(FIXTURES, 'plugins/good-engine.ts')
export const FIXTURE_PROVIDER = path.join(FIXTURES, 'plugins/good-provider.ts')

export { tempDir }

/**
 * A config like the user's, with a fresh temp dataDir unless one is given, silent logs, and the fixture
 * engine and provider plugins loaded (the fixture engine selected unless `speech.engine` says otherwise).
 * One engine process at a time (`speech.concurrency: 1`) unless the test says otherwise: the default "auto"
 * would start one per core in every test that uses an engine with isolation 'process'.
 */
export function testConfig(t: Test, overrides: ConfigOverrides = {}): Readonly<DictumConfig> {
  const dataDir = (overrides.dataDir as string | undefined) ?? tempDir(t)
  return resolveConfig(ConfigSchema, {
    plugins: [FIXTURE_ENGINE, FIXTURE_PROVIDER],
    ...overrides,
    speech: { engine: 'fixture-echo', concurrency: 1, ...(overrides.speech as object) },
    dataDir,
    log: { level: 'silent', ...(overrides.log as object) },
  })
}

export async function build(
  t: Test,
  overrides: ConfigOverrides = {},
  options: BuildOptions = {},
): Promise<DictumApp> {
  const app = await buildApp(testConfig(t, overrides), {
    logger: false,
    runnerFactory: inlineBuiltInEngines,
    ...options,
  })
  t.teardown(() => app.close())
  await app.ready()
  return app
}

/**
 * One app for a whole test file, listening on a loopback port, built on first use and closed when the
 * file's root test ends: for subtests that do not interfere (each opens its own sessions and sends its own
 * requests), so that a model loads once per file instead of once per subtest. `root` is the file's `t`.
 */
export function sharedApp(
  root: Test,
  overrides: ConfigOverrides = {},
  options: BuildOptions = {},
): () => Promise<{ app: DictumApp; port: number }> {
  let shared: Promise<{ app: DictumApp; port: number }> | undefined
  return () => {
    shared ??= build(root, overrides, options).then(async (app) => ({ app, port: await listen(root, app) }))
    return shared
  }
}

/** Injects a request (JSON when a payload is given) and returns status, headers and the parsed body. */
export async function injectJson(
  app: DictumApp,
  method: string,
  url: string,
  payload?: unknown,
  headers = {},
) {
  const response = await app.inject({
    method: method as 'GET',
    url,
    headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(payload === undefined
      ? {}
      : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  })
  let body: unknown
  try {
    body = response.json()
  } catch {
    body = response.body
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  return { status: response.statusCode, headers: response.headers, body: body as any }
}
