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
