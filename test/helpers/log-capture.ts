/** A pino logger whose lines a test can read, and a poll for a condition (a log line, a state). */
import { Writable } from 'node:stream'
import pino from 'pino'

export function logCapture(level: pino.Level = 'info') {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return { logger: pino({ level }, stream), lines }
}

/**
 * Resolves once `check` holds; polls every 50 ms and gives up after 60 s. The bound only turns a hang into a
 * failure: on a loaded machine, starting engine processes (at a lower priority than the tests' own) took more
 * than the 10 s it was (CI: "gave up waiting for transcription 3 to start").
 */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`gave up waiting for ${what}`)
}
