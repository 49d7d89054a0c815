/** The one time-limit helper (issue 12 item 4): expiry, the caller's abort, and clear. */
import t from 'tap'
import { sleep, timeLimit } from '../../lib/timeout.ts'

t.test('the time runs out: the signal aborts with the given reason, race rejects with it', async (t) => {
  const reason = new Error('too slow')
  const limit = timeLimit(20, { reason: () => reason })
  const never = new Promise<void>(() => {})
  await t.rejects(limit.race(never), reason)
  t.ok(limit.expired)
  t.equal(limit.signal.reason, reason)
  limit.clear()
})

t.test('without a reason the time limit is a TimeoutError', async (t) => {
  const limit = timeLimit(10)
  await t.rejects(limit.race(new Promise<void>(() => {})), { name: 'TimeoutError' })
  limit.clear()
})

t.test("the caller's abort aborts the limit with the caller's reason, and is not an expiry", async (t) => {
  const caller = new AbortController()
  const limit = timeLimit(60_000, { signal: caller.signal })
  const raced = limit.race(new Promise<void>(() => {}))
  caller.abort(new Error('client went away'))
  await t.rejects(raced, { message: 'client went away' })
  t.notOk(limit.expired)
  limit.clear()
})

t.test('work done in time settles as it is; clear stops the clock', async (t) => {
  const limit = timeLimit(50)
  t.equal(await limit.race(Promise.resolve(7)), 7)
  limit.clear()
  await sleep(80)
  t.notOk(limit.signal.aborted, 'a cleared limit never fires')
})

t.test("sleep rejects with the signal's reason", async (t) => {
  const controller = new AbortController()
  const waiting = sleep(60_000, controller.signal)
  controller.abort(new Error('stop'))
  await t.rejects(waiting, { message: 'stop' })
})
