/**
 * The audio handoff (kernel/engine-runner/audio-handoff.ts) between the API process and real engine hosts:
 * the exact samples arrive, each host has its own file, and the file goes with its host. The handoff's own
 * rules, without a host: test/kernel/engine-runner/audio-handoff.test.ts.
 */

import t from 'tap'
import type { DictumError } from '../../../errors/catalogue.ts'
import { sharedMemoryDir } from '../../../kernel/engine-runner/audio-handoff.ts'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import { tempDir } from '../../helpers/temp-dir.ts'
import { digest, fixtureRunner, handoffFiles, noise } from '../../kernel/engine-runner/runner-helpers.ts'

t.test(
  'engine hosts get the exact samples through the handoff file, and the file goes with the host',
  async (t) => {
    const dir = tempDir(t, 'dictum-handoff-')
    const runner = createEngineRunner(fixtureRunner('fake', { audioDir: dir }))
    t.teardown(() => runner.close())
    for (const seconds of [30, 0.5, 11]) {
      const samples = noise(seconds, seconds * 10)
      const result = await runner.transcribe({ samples, customWords: [] })
      t.equal(result.text, `fake ${samples.length} samples`)
      t.equal(result.debug?.digest, digest(samples), `${seconds} s arrive intact`)
    }
    t.equal(handoffFiles(dir).length, 1, 'one file for the one host')
    await runner.close()
    t.same(handoffFiles(dir), [], 'closing the runner removes it')
  },
)

t.test('pieces go inline when the runner has no handoff directory', async (t) => {
  const runner = createEngineRunner(fixtureRunner('fake', { audioDir: null }))
  t.teardown(() => runner.close())
  const samples = noise(11, 7)
  const result = await runner.transcribe({ samples, customWords: [] })
  t.equal(result.debug?.digest, digest(samples))
})

t.test('a host that crashes takes its handoff file with it; the next host gets a new one', async (t) => {
  const dir = tempDir(t, 'dictum-handoff-')
  const runner = createEngineRunner(fixtureRunner('abort', { audioDir: dir }))
  t.teardown(() => runner.close())
  const alive = await runner.transcribe({ samples: noise(5), customWords: [], prompt: 'alive' })
  t.match(alive.text, /^alive/)
  const [before] = handoffFiles(dir)
  t.ok(before, 'the live host has a file')
  const error = (await runner
    .transcribe({ samples: noise(5), customWords: [], prompt: 'segfault' })
    .catch((e) => e)) as DictumError
  t.equal(error.code, 'ENGINE_CRASHED')
  t.same(handoffFiles(dir), [], 'the dead host file is removed')
  await runner.transcribe({ samples: noise(5), customWords: [], prompt: 'alive' })
  const [after] = handoffFiles(dir)
  t.ok(after && after !== before, 'the new host has its own file')
  await runner.close()
  t.same(handoffFiles(dir), [])
})

t.test('the default handoff directory is left clean', async (t) => {
  const shm = sharedMemoryDir()
  if (!shm) {
    t.comment('skipped: no writable /dev/shm here, pieces go through the IPC pipe')
    return
  }
  const runner = createEngineRunner(fixtureRunner('fake'))
  const samples = noise(11, 9)
  const result = await runner.transcribe({ samples, customWords: [] })
  t.equal(result.debug?.digest, digest(samples))
  const mine = () => handoffFiles(shm).filter((name) => name.startsWith(`dictum-audio-${process.pid}-`))
  t.equal(mine().length, 1, 'the host reads from /dev/shm')
  await runner.close()
  t.same(mine(), [])
})
