/**
 * Runs the pieces of one recording on several engine slots at once and hands their results on in the
 * recording's order (a long file on a machine with several cores).
 */

interface Outstanding<R> {
  index: number
  stop: AbortController
  result: Promise<R>
}

/**
 * Calls `run` for each item of `source` with up to `width` items outstanding at once, and `emit` with their
 * results in the items' order. The next item is read only when there is room, so at most `width` items (and
 * their audio) are held at any time, however long the source.
 *
 * As one after the other would: the results before a failed item are still emitted, then the call rejects
 * with that item's error; the items after it are stopped (their signal aborts) and no more are read. When
 * `signal` aborts every item stops. The call settles only once every item it started has settled, so
 * nothing keeps running on an engine after it returns.
 */
export async function mapInOrder<T, R>(
  source: AsyncIterable<T>,
  width: number,
  run: (item: T, signal: AbortSignal) => Promise<R>,
  emit: (result: R) => void,
  signal?: AbortSignal,
): Promise<void> {
  const outstanding: Outstanding<R>[] = []
  let failedAt = Number.POSITIVE_INFINITY
  const stopAfter = (index: number) => {
    failedAt = Math.min(failedAt, index)
    for (const entry of outstanding) if (entry.index > failedAt) entry.stop.abort()
  }
  const next = async () => emit(await (outstanding.shift() as Outstanding<R>).result)
  try {
    let index = 0
    for await (const item of source) {
      if (index > failedAt) break
      const stop = new AbortController()
      const entry = {
        index: index++,
        stop,
        result: run(item, signal ? AbortSignal.any([signal, stop.signal]) : stop.signal),
      }
      entry.result.catch(() => stopAfter(entry.index))
      outstanding.push(entry)
      while (outstanding.length >= Math.max(1, width)) await next()
    }
    while (outstanding.length > 0) await next()
  } finally {
    for (const entry of outstanding) entry.stop.abort()
    // The ones emitted have settled; the rest (stopped, or not reached after a failure) settle now.
    await Promise.allSettled(outstanding.map((entry) => entry.result))
  }
}
