/**
 * A test object for running a conformance suite and reading what it found, instead of reporting to tap: it
 * satisfies the suites' structural ConformanceTest, runs subtests in order with their teardowns, and records
 * each failed assertion (and each subtest that threw) with the path of subtests that led to it.
 */
import { isDeepStrictEqual } from 'node:util'
import type { ConformanceTest } from '../../sdk/testing/conformance-test.ts'

export interface Findings {
  /** `subtest > subtest: message` of every failed assertion. */
  failures: string[]
  /** `subtest: reason` of every skipped subtest. */
  skipped: string[]
  passes: number
}

type Body = (t: ConformanceTest) => unknown

class Recorder implements ConformanceTest {
  readonly #path: string
  readonly #findings: Findings
  readonly #teardowns: Array<() => unknown> = []

  constructor(path: string, findings: Findings) {
    this.#path = path
    this.#findings = findings
  }

  async test(name: string, ...rest: unknown[]): Promise<unknown> {
    const [options, body] = (rest.length === 1 ? [{}, rest[0]] : rest) as [{ skip?: unknown }, Body]
    const path = this.#path ? `${this.#path} > ${name}` : name
    if (options.skip) {
      this.#findings.skipped.push(`${path}: ${options.skip}`)
      return
    }
    const child = new Recorder(path, this.#findings)
    try {
      await body(child)
    } catch (err) {
      child.fail(`threw: ${(err as Error)?.message ?? err}`)
    } finally {
      await child.runTeardowns()
    }
  }

  teardown(fn: () => unknown): void {
    this.#teardowns.push(fn)
  }

  async runTeardowns(): Promise<void> {
    for (const fn of this.#teardowns.splice(0).reverse()) await fn()
  }

  #assert(passed: boolean, message: string | undefined, detail: string): boolean {
    if (passed) this.#findings.passes++
    else
      this.#findings.failures.push(`${this.#path}: ${message ?? 'assertion'}${detail ? ` (${detail})` : ''}`)
    return passed
  }

  ok(value: unknown, message?: string) {
    return this.#assert(Boolean(value), message, '')
  }
  notOk(value: unknown, message?: string) {
    return this.#assert(!value, message, '')
  }
  equal(found: unknown, wanted: unknown, message?: string) {
    return this.#assert(Object.is(found, wanted), message, `found ${show(found)}, wanted ${show(wanted)}`)
  }
  not(found: unknown, notWanted: unknown, message?: string) {
    return this.#assert(!Object.is(found, notWanted), message, `found ${show(found)}`)
  }
  same(found: unknown, wanted: unknown, message?: string) {
    return this.#assert(
      isDeepStrictEqual(found, wanted),
      message,
      `found ${show(found)}, wanted ${show(wanted)}`,
    )
  }
  match(found: unknown, pattern: RegExp | string, message?: string) {
    const text = String(found)
    const matches = typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)
    return this.#assert(matches, message, `found ${show(found)}, pattern ${String(pattern)}`)
  }
  type(found: unknown, type: string, message?: string) {
    return this.#assert(typeof found === type, message ?? `type is ${type}`, `found ${typeof found}`)
  }
  doesNotThrow(fn: () => unknown, message?: string) {
    try {
      fn()
      return this.#assert(true, message, '')
    } catch (err) {
      return this.#assert(false, message, `threw ${(err as Error)?.message}`)
    }
  }
  pass(message?: string) {
    return this.#assert(true, message, '')
  }
  fail(message?: string) {
    return this.#assert(false, message, '')
  }
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Runs `suite` against a recorder and returns what it found (the suite's teardowns have run). */
export async function findings(suite: (t: ConformanceTest) => Promise<void>): Promise<Findings> {
  const found: Findings = { failures: [], skipped: [], passes: 0 }
  const root = new Recorder('', found)
  try {
    await suite(root)
  } finally {
    await root.runTeardowns()
  }
  return found
}
