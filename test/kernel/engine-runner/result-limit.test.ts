/**
 * Issue 16 item 20: one piece's result is capped (max(64 K, 2 K per second of audio) characters), checked in
 * the host before it is sent, again in the API process, and for in-process engines. The checks in and beside
 * a real engine host: test/process/engine-runner/result-limit-hosts.test.ts.
 */
import t from 'tap'
import type { DictumError } from '../../../errors/catalogue.ts'
import type { EngineDefinition } from '../../../kernel/contracts/engine.ts'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import { oversizeReason, resultLimit, resultSize } from '../../../kernel/engine-runner/result-limit.ts'
import greedyDefinition from '../../fixtures/engines/greedy-engine.ts'
import { fixtureRunner, request } from './runner-helpers.ts'

const greedy = greedyDefinition as unknown as EngineDefinition
const ONE_SECOND = 16_000

t.test('the cap: 64 K characters, more for long audio', async (t) => {
  t.equal(resultLimit(0), 65_536)
  t.equal(resultLimit(ONE_SECOND), 65_536)
  t.equal(resultLimit(60 * ONE_SECOND), 122_880)
})

t.test('the size counts every string, number and key, and stops past the limit', async (t) => {
  t.equal(resultSize({ text: 'hello', confidence: 0.5 }, 1000), 8 + 4 + 5 + 10 + 8)
  const words = Array.from({ length: 3 }, (_, i) => ({ word: 'ab', start: i, end: i + 1 }))
  t.equal(resultSize({ words }, 1000), 8 + 5 + 8 + 3 * (8 + 4 + 2 + 5 + 8 + 3 + 8))
  t.equal(resultSize({ debug: { samples: new Float32Array(100) } }, 1000), 8 + 5 + 8 + 7 + 400)
  t.equal(resultSize({ tags: new Map([['k', 'v']]) }, 1000), 8 + 4 + 8 + 1 + 1)

  // Each walk stops at the limit: the elements it reads (counted through a proxy) stay near the limit, not
  // the five million numbers or the million references there are.
  const reads = { count: 0 }
  const counted = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, key, receiver) {
        if (typeof key === 'string' && /^\d+$/u.test(key)) reads.count++
        return Reflect.get(object, key, receiver)
      },
    })
  const many = counted(new Array(5_000_000).fill(1))
  t.ok(resultSize(many, 65_536) > 65_536, 'five million numbers are over')
  t.ok(reads.count <= 65_536, `the walk read ${reads.count} of the five million`)
  const cyclic: Record<string, unknown> = { text: 'x' }
  cyclic.self = cyclic
  t.ok(resultSize(cyclic, 100) <= 100, 'a cycle is counted once')
  const wide = Array.from({ length: 1000 }, () => counted([] as unknown[]))
  for (const list of wide) list.push(...wide)
  reads.count = 0
  t.ok(resultSize(wide, 65_536) > 65_536, 'a tangle of a million references is over')
  t.ok(reads.count <= 65_536, `the walk read ${reads.count} of the million references`)
})

t.test('the reason names the cap and the audio length', async (t) => {
  t.equal(oversizeReason({ text: 'fine', confidence: null }, ONE_SECOND), null)
  t.equal(
    oversizeReason({ text: 'a'.repeat(70_000), confidence: null }, ONE_SECOND),
    'the result is larger than the limit of 65536 characters for 1.0 s of audio',
  )
})

const tooLarge =
  'Speech engine failed: greedy: the result is larger than the limit of 65536 characters for 1.0 s of audio.'

t.test('in-process engines (isolation none) are capped too', async (t) => {
  const runner = createEngineRunner(fixtureRunner('greedy', { isolation: 'none', definition: greedy }))
  t.teardown(() => runner.close())
  const error = (await runner.transcribe(request(ONE_SECOND, 'huge-text')).catch((e) => e)) as DictumError
  t.equal(error.code, 'ENGINE_FAILED')
  t.equal(error.message, tooLarge)
  t.equal((await runner.transcribe(request(ONE_SECOND, 'x'))).text, `alive ${process.pid}`)
})
