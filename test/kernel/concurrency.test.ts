/**
 * `speech.concurrency: "auto"`: one engine process per core, fewer when the engine's memory estimate does
 * not fit the machine's free memory (readings injected), an explicit number as it is; GET /v1/engines says
 * the number and why, and the runner gets that number of slots.
 */
import path from 'node:path'
import { asValue } from 'awilix/browser'
import t, { type Test } from 'tap'
import { resolveConfig } from '../../config/load.ts'
import { MEMORY_RESERVE_MB } from '../../kernel/concurrency.ts'
import { createEngineRunner } from '../../kernel/engine-runner/index.ts'
import type { EngineRunnerOptions } from '../../kernel/engine-runner/types.ts'
import { ConfigSchema } from '../../server/config-schema.ts'
import { build, FIXTURES, injectJson } from '../helpers/build.ts'

const HEAVY_ENGINE = path.join(FIXTURES, 'plugins/heavy-engine.ts')

/** An app on a machine with `cores` and `freeMb`, with the fixture engine of 1000 MB per process. */
async function appOn(
  t: Test,
  machine: { cores: number; freeMb: number },
  speech: Record<string, unknown> = {},
) {
  const slots: number[] = []
  const app = await build(
    t,
    // "auto" unless the test says otherwise (the test helpers' default is 1).
    { plugins: [HEAVY_ENGINE], speech: { engine: 'fixture-heavy', concurrency: 'auto', ...speech } },
    {
      services: {
        machine: asValue({ cores: () => machine.cores, freeMemoryMb: () => machine.freeMb }),
      },
      runnerFactory: (options: EngineRunnerOptions) => {
        slots.push(options.concurrency)
        // In this process: what matters is the slots chosen for an engine with isolation 'process'.
        return createEngineRunner({ ...options, isolation: 'none' })
      },
    },
  )
  const engine = async () => {
    const { body } = await injectJson(app, 'GET', '/v1/engines')
    return body.items.find((e: { id: string }) => e.id === 'fixture-heavy')
  }
  return { app, slots, engine }
}

t.test('"auto" is the default: one process per core when the memory fits', async (t) => {
  t.equal(resolveConfig(ConfigSchema, { dataDir: '/nonexistent' }).speech.concurrency, 'auto')
  const { app, slots, engine } = await appOn(t, { cores: 4, freeMb: MEMORY_RESERVE_MB + 8000 })
  t.equal(app.dictum.configStore.current.speech.concurrency, 'auto')
  t.match(await engine(), { concurrency: 4, concurrencyReason: /^auto: 4 cores/ })
  await app.dictum.engines.acquire().then((e) => e.release())
  t.same(slots, [4], 'the runner got 4 slots')
})

t.test('"auto" takes fewer processes when the estimate does not fit the free memory', async (t) => {
  // Room for two processes of 1000 MB beyond the reserve, on 4 cores.
  const { app, slots, engine } = await appOn(t, { cores: 4, freeMb: MEMORY_RESERVE_MB + 2500 })
  t.match(await engine(), { concurrency: 2, concurrencyReason: /memory for 2 of 4 \(1000 MB each/ })
  const acquired = await app.dictum.engines.acquire()
  t.equal(acquired.concurrency, 2)
  acquired.release()
  t.same(slots, [2], 'the runner got 2 slots')
  t.match(await engine(), { concurrency: 2 }, 'the number in force')
})

t.test('"auto" keeps one process when not even one fits', async (t) => {
  const { engine } = await appOn(t, { cores: 2, freeMb: 300 })
  t.match(await engine(), { concurrency: 1, concurrencyReason: /memory for 1 of 2/ })
})

t.test('speech.memoryLimitMb caps the estimate: no process grows past it', async (t) => {
  const { engine } = await appOn(t, { cores: 4, freeMb: MEMORY_RESERVE_MB + 2500 }, { memoryLimitMb: 600 })
  t.match(await engine(), { concurrency: 4, concurrencyReason: /600 MB each fits/ })
})

t.test('an explicit number wins over the machine', async (t) => {
  const { app, slots, engine } = await appOn(t, { cores: 8, freeMb: 100 }, { concurrency: 3 })
  t.match(await engine(), { concurrency: 3, concurrencyReason: 'speech.concurrency' })
  await app.dictum.engines.acquire().then((e) => e.release())
  t.same(slots, [3])
})
