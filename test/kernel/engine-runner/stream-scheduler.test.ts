/** The order an engine host runs its streams' calls in (kernel/engine-runner/stream-scheduler.ts). */
import t from 'tap'
import { StreamScheduler } from '../../../kernel/engine-runner/stream-scheduler.ts'

/** Turns of the event loop until `done` holds (the scheduler starts one call per turn). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve))
}

t.test("a stream's finish runs before other streams' chunks queued earlier", async (t) => {
  const errors: unknown[] = []
  const scheduler = new StreamScheduler((error) => errors.push(error))
  const ran: string[] = []
  const speaking = scheduler.lane((samples) => ran.push(`speaking accept ${samples.length}`))
  const finishing = scheduler.lane((samples) => ran.push(`finishing accept ${samples.length}`))
  for (let i = 0; i < 3; i++) scheduler.write(speaking, new Float32Array(100))
  scheduler.write(finishing, new Float32Array(10))
  scheduler.call(finishing, () => ran.push('finishing finish'))
  scheduler.prioritise(finishing)
  await until(() => ran.length === 5)
  t.same(ran, [
    'finishing accept 10',
    'finishing finish',
    'speaking accept 100',
    'speaking accept 100',
    'speaking accept 100',
  ])
  t.same(errors, [])
})

t.test('chunks and calls of one stream run one at a time, in order', async (t) => {
  const scheduler = new StreamScheduler(() => {})
  const ran: string[] = []
  const lane = scheduler.lane((samples) => ran.push(`accept ${samples[0]}`))
  for (let i = 0; i < 3; i++) scheduler.write(lane, new Float32Array(1).fill(i))
  scheduler.call(lane, () => ran.push('finish'))
  scheduler.write(lane, new Float32Array(1).fill(9))
  await until(() => ran.length === 5)
  t.same(ran, ['accept 0', 'accept 1', 'accept 2', 'finish', 'accept 9'])
})

t.test('streams take turns: one with a backlog does not hold back one opened after it', async (t) => {
  const scheduler = new StreamScheduler(() => {})
  const ran: string[] = []
  const behind = scheduler.lane(() => ran.push('behind'))
  const opened = scheduler.lane(() => ran.push('opened'))
  for (let i = 0; i < 3; i++) scheduler.write(behind, new Float32Array(1))
  scheduler.call(opened, () => ran.push('open'))
  scheduler.write(opened, new Float32Array(1))
  await until(() => ran.length === 5)
  t.same(ran, ['behind', 'open', 'behind', 'opened', 'behind'])
})

t.test('a call still running holds its stream, not the others; a failure is reported', async (t) => {
  const errors: unknown[] = []
  const scheduler = new StreamScheduler((error) => errors.push(error))
  const ran: string[] = []
  let release = () => {}
  const slow = scheduler.lane(() => {})
  const other = scheduler.lane(() => ran.push('other accept'))
  scheduler.call(slow, () => new Promise<void>((resolve) => (release = resolve)))
  scheduler.call(slow, () => ran.push('slow after'))
  scheduler.write(other, new Float32Array(1))
  scheduler.call(other, () => {
    throw new Error('boom')
  })
  await until(() => ran.length === 1 && errors.length === 1)
  t.same(ran, ['other accept'], 'the other stream went on while the first waited')
  t.same(
    errors.map((e) => (e as Error).message),
    ['boom'],
  )
  release()
  await until(() => ran.length === 2)
  t.same(ran, ['other accept', 'slow after'])
})

t.test('a cleared stream runs nothing it had waiting', async (t) => {
  const scheduler = new StreamScheduler(() => {})
  const ran: string[] = []
  const lane = scheduler.lane(() => ran.push('accept'))
  scheduler.write(lane, new Float32Array(1))
  scheduler.clear(lane)
  scheduler.call(lane, () => ran.push('cancel'))
  await until(() => ran.includes('cancel'))
  t.same(ran, ['cancel'])
})
