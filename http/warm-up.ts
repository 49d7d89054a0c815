/**
 * Work that makes a feature's first request fast, done in the background once the API listens: loading the
 * modules that only some routes need (Swagger UI, the WebSocket server, the web app's files…), which
 * `dictum serve` no longer loads before it answers. Each task is also what the feature's first request
 * awaits if it comes sooner (a task must be safe to call twice and share its work: a promise kept once made).
 *
 * The server starts them after its first answer, or WARM_UP_DELAY_MS after listening if no request comes
 * (`startAfterFirstAnswer`): loading modules holds the event loop for tens of milliseconds at a time, and the
 * first request (a supervisor's health check) should not wait behind it. The tasks run one after another,
 * each after the event loop has had a turn, so a request that arrives meanwhile waits for at most the task
 * in progress. A task that fails is logged; the request that needs it runs the task again and answers its
 * error.
 */
import type { Server } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'

/** When no request comes after listening, the warm-up starts this long after. */
export const WARM_UP_DELAY_MS = 200

export interface WarmUpTask {
  name: string
  run: () => Promise<unknown>
}

export class WarmUp {
  readonly #tasks: WarmUpTask[] = []
  /** Names of the tasks done, in order (tests, and the debug log). */
  readonly finished: string[] = []
  #running: Promise<void> | null = null
  #stopped = false
  /** Ends the wait of startAfterFirstAnswer (its timer and listener). */
  #cancelStart: () => void = () => {}

  /** Adds a task (features add theirs when they register). */
  add(name: string, run: () => Promise<unknown>): void {
    this.#tasks.push({ name, run })
  }

  /** Runs every task once, in the background (server/server.ts, once listening); safe to call twice. */
  start(log: FastifyBaseLogger): Promise<void> {
    this.#running ??= (async () => {
      for (const task of this.#tasks) {
        await new Promise((resolve) => setImmediate(resolve))
        if (this.#stopped) return
        try {
          const started = performance.now()
          await task.run()
          this.finished.push(task.name)
          log.debug({ task: task.name, ms: Math.round(performance.now() - started) }, 'warmed up')
        } catch (err) {
          log.warn({ task: task.name, error: (err as Error).message }, 'warming up failed')
        }
      }
    })()
    return this.#running
  }

  /** Starts the tasks once `server` has answered its first request, or WARM_UP_DELAY_MS from now. */
  startAfterFirstAnswer(server: Server, log: FastifyBaseLogger): void {
    const begin = () => {
      clearTimeout(timer)
      server.off('request', onRequest)
      if (!this.#stopped) void this.start(log)
    }
    const onRequest = (_request: unknown, response: NodeJS.EventEmitter) => response.once('finish', begin)
    const timer = setTimeout(begin, WARM_UP_DELAY_MS).unref()
    server.on('request', onRequest)
    this.#cancelStart = begin
  }

  /** Starts no further task (the server is closing); resolves when the one in progress has ended. */
  async stop(): Promise<void> {
    this.#stopped = true
    this.#cancelStart()
    await this.#running
  }
}

/**
 * What a feature loads at first use: one load shared by the callers at once and kept once it succeeded; a
 * failure is not kept, so the next caller (a request, after a failed warm-up) tries again.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = null
      throw err
    })
    return loading
  }
}
