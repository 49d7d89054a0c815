import t from 'tap'
import { SlotQueue } from '../../../kernel/engine-runner/slot-queue.ts'

const tick = () => new Promise((resolve) => setImmediate(resolve))

t.test('grants slots in arrival order, never more than its size', async (t) => {
  const queue = new SlotQueue(2, 'x')
  const order: string[] = []
  const releases: Record<string, () => void> = {}
  for (const name of ['a', 'b', 'c', 'd']) {
    void queue.acquire().then((release) => {
      order.push(name)
      releases[name] = release
    })
  }
  await tick()
  t.same(order, ['a', 'b'])
  t.equal(queue.active, 2)
  t.equal(queue.waiting, 2)
  releases.b?.()
  releases.b?.()
  await tick()
  t.same(order, ['a', 'b', 'c'], 'a double release frees one slot only')
  releases.a?.()
  await tick()
  t.same(order, ['a', 'b', 'c', 'd'])
})

t.test('an aborted waiter leaves the queue; close rejects the rest', async (t) => {
  const queue = new SlotQueue(1, 'x')
  const release = await queue.acquire()
  const controller = new AbortController()
  const aborted = queue.acquire(controller.signal)
  const closedOut = queue.acquire()
  controller.abort(new Error('gone'))
  await t.rejects(aborted, { message: 'gone' })
  t.equal(queue.waiting, 1)
  queue.close()
  await t.rejects(closedOut, { code: 'ENGINE_UNAVAILABLE', message: /x: the engine was closed/ })
  await t.rejects(queue.acquire(), { code: 'ENGINE_UNAVAILABLE' })
  release()
})

t.test(
  'normal waiters go ahead of low-priority ones (dictation before batch jobs), FIFO among equals',
  async (t) => {
    const queue = new SlotQueue(1, 'x')
    const order: string[] = []
    const releases: Record<string, () => void> = {}
    const take = (name: string, priority?: 'normal' | 'low') =>
      void queue.acquire(undefined, priority).then((release) => {
        order.push(name)
        releases[name] = release
      })
    take('job1', 'low')
    take('job2', 'low')
    take('job3', 'low')
    take('dictate1')
    take('dictate2', 'normal')
    await tick()
    t.same(order, ['job1'], 'the first job holds the only slot')
    for (const next of ['dictate1', 'dictate2', 'job2', 'job3']) {
      releases[order.at(-1) as string]?.()
      await tick()
      t.equal(order.at(-1), next)
    }
    t.same(order, ['job1', 'dictate1', 'dictate2', 'job2', 'job3'])
  },
)

t.test('an aborted normal waiter leaves the low ones in order', async (t) => {
  const queue = new SlotQueue(1, 'x')
  const first = await queue.acquire(undefined, 'low')
  const controller = new AbortController()
  const order: string[] = []
  void queue.acquire(undefined, 'low').then((r) => {
    order.push('low')
    r()
  })
  const aborted = queue.acquire(controller.signal)
  controller.abort(new Error('gone'))
  await t.rejects(aborted, { message: 'gone' })
  t.equal(queue.waiting, 1)
  first()
  await tick()
  t.same(order, ['low'])
})
