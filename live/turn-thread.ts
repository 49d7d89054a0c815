/**
 * The turn-detection thread: holds the sessions' Silero detectors (turn-detector.ts) and runs them, so the
 * API's event loop never does. Creating a detector loads the model (70–300 ms measured on the 2-core test
 * machine, which held every route that long at each session's start) and each window costs a fraction of a
 * millisecond. Messages are handled in order, so a detector sees its creation, cuts and windows in the
 * order the session sent them. The pool of idle detectors is kept by the other side (turn-detector-pool.ts).
 */
import { parentPort } from 'node:worker_threads'
import { lowerThisThreadPriority } from '../lib/thread-priority.ts'
import { TurnDetector, type TurnDetectorOptions, type TurnEvent, WINDOW } from './turn-detector.ts'

export type TurnRequest =
  | { op: 'create'; id: number; options: TurnDetectorOptions }
  | { op: 'restart'; id: number; origin: number }
  | { op: 'cut'; id: number }
  | { op: 'free'; id: number }
  /** The pool is done: every detector goes and the thread ends, between two calls (never terminated
   * mid-call: a native call cut short by `terminate()` aborts the whole process). */
  | { op: 'stop' }
  /** Windows of WINDOW samples, the last one possibly shorter (a commit's rest): one answer per window. */
  | { op: 'accept'; id: number; seq: number; samples: Float32Array }

export type TurnReply = { seq: number; turns: Array<TurnEvent | null> } | { seq: number; error: string }

// Turn detection is background work: the API's event loop comes first for a core (lib/thread-priority.ts).
lowerThisThreadPriority()

const detectors = new Map<number, TurnDetector>()
/** Why a detector could not be created: told to its first `accept`. */
const failures = new Map<number, string>()

function handle(request: TurnRequest): TurnReply | null {
  switch (request.op) {
    case 'create':
      try {
        detectors.set(request.id, new TurnDetector(request.options))
      } catch (error) {
        failures.set(request.id, (error as Error).message)
      }
      return null
    case 'restart':
      detectors.get(request.id)?.restart(request.origin)
      return null
    case 'cut':
      detectors.get(request.id)?.cut()
      return null
    case 'free':
      detectors.delete(request.id)
      failures.delete(request.id)
      return null
    case 'stop':
      detectors.clear()
      failures.clear()
      // Between calls, so no native call is cut short (the TypeScript loader of a checkout would keep an
      // idle thread alive: it does not end on its own).
      process.exit(0)
      return null
    case 'accept': {
      const detector = detectors.get(request.id)
      if (!detector) {
        const why = failures.get(request.id) ?? 'no such detector'
        return { seq: request.seq, error: `the turn detector could not be created: ${why}` }
      }
      const turns: Array<TurnEvent | null> = []
      const { samples } = request
      for (let at = 0; at < samples.length; at += WINDOW)
        turns.push(detector.accept(samples.subarray(at, at + WINDOW)))
      return { seq: request.seq, turns }
    }
  }
}

parentPort?.on('message', (request: TurnRequest) => {
  let reply: TurnReply | null
  try {
    reply = handle(request)
  } catch (error) {
    reply = request.op === 'accept' ? { seq: request.seq, error: (error as Error).message } : null
  }
  if (reply) parentPort?.postMessage(reply)
})
