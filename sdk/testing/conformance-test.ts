/**
 * What the conformance suites need of a test framework: subtests, teardown and tap's assertion names. tap's
 * `t` satisfies it as it is, so the suites do not depend on tap at run time.
 */
/** An optional assertion message (written as tap declares it). */
type Message = [] | [message: string]

export interface ConformanceTest {
  /**
   * `test(name, fn)` or `test(name, { skip }, fn)`, where `fn` gets a ConformanceTest. One loose signature,
   * so that tap's overloaded `test` is assignable to it.
   */
  test(name: string, ...rest: unknown[]): Promise<unknown>
  teardown(fn: () => unknown): unknown
  ok(value: unknown, ...message: Message): unknown
  notOk(value: unknown, ...message: Message): unknown
  equal(found: unknown, wanted: unknown, ...message: Message): unknown
  not(found: unknown, notWanted: unknown, ...message: Message): unknown
  same(found: unknown, wanted: unknown, ...message: Message): unknown
  match(found: unknown, pattern: RegExp | string, ...message: Message): unknown
  type(found: unknown, type: string, ...message: Message): unknown
  doesNotThrow(fn: () => unknown, ...message: Message): unknown
  pass(...message: Message): unknown
  fail(...message: Message): unknown
}

/** The work's value, or undefined after a failure saying which promised thing threw. */
export async function attempt<T>(
  t: ConformanceTest,
  what: string,
  work: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await work()
  } catch (err) {
    t.fail(`${what} threw: ${(err as Error)?.message ?? err}`)
    return undefined
  }
}
