/**
 * Runs the pieces of one recording on several engine slots at once and hands their results on in the
 * recording's order (a long file on a machine with several cores).
 */

/**
 * Calls `run` for each item of `source` with up to `width` items outstanding at once, and `emit` with their
 * results in the items' order. The next item is read only when there is room, so at most `width` items (and
 * their audio) are held at any time, however long the source.
 *
 * The first failure (or `signal` aborting) stops the rest: the signal every `run` got aborts, and the call
 * rejects with that first failure only once every outstanding run has settled, so nothing keeps running on
 * an engine after it returns.
 */
export async function mapInOrder<T, R>(
  source: AsyncIterable<T>,
  width: number,
  run: (item: T, signal: AbortSignal) => Promise<R>,
  emit: (result: R) => void,
  signal?: AbortSignal,
): Promise<void> {
  const stop = new AbortController()
  const linked = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal
  // A run stopped because another failed rejects with the abort: the first failure is the one to report.
  const first: { failure: { error: unknown } | null } = { failure: null }
  const fail = (error: unknown) => {
    first.failure ??= { error }
    stop.abort(first.failure.error)
  }
  const outstanding: Promise<R>[] = []
  const next = async () => {
    try {
      return await (outstanding.shift() as Promise<R>)
    } catch (error) {
      throw first.failure ? first.failure.error : error
    }
  }
  try {
    for await (const item of source) {
      if (first.failure) throw first.failure.error
      const running = run(item, linked).catch((error: unknown) => {
        fail(error)
        throw error
      })
      // Awaited in order later; a rejection meanwhile is handled by `fail`.
      running.catch(() => {})
      outstanding.push(running)
      while (outstanding.length >= Math.max(1, width)) emit(await next())
    }
    while (outstanding.length > 0) emit(await next())
  } catch (error) {
    fail(error)
    throw first.failure?.error ?? error
  } finally {
    await Promise.allSettled(outstanding)
  }
}
