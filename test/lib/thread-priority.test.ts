/**
 * Background work runs below the API's event loop (lib/thread-priority.ts, issue 28 items 1–2): the body
 * worker that parses large JSON bodies and realtime frames, and the turn-detection thread each run
 * BACKGROUND_NICE_STEPS nice levels below this process, whose own thread is left as it was. Engine hosts run
 * at this process's priority. Read from /proc (Linux: a nice value per thread).
 */
import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import t from 'tap'
import { parseOffThread } from '../../http/json-body/parser.ts'
import { createEngineRunner } from '../../kernel/engine-runner/index.ts'
import { BACKGROUND_NICE_STEPS, lowerThisThreadPriority } from '../../lib/thread-priority.ts'
import { WINDOW } from '../../live/turn-detector.ts'
import { TurnDetectorPool } from '../../live/turn-detector-pool.ts'
import { fixtureRunner, pidOf, request } from '../kernel/engine-runner/runner-helpers.ts'

const linux = process.platform === 'linux'
const ours = os.getPriority()
const background = Math.min(19, ours + BACKGROUND_NICE_STEPS)
const skip = !linux
  ? 'threads have a nice value of their own on Linux only'
  : ours >= 19
    ? 'this process runs at the lowest priority already'
    : false

/** The nice value of a thread (or a process's main thread), field 19 of its stat. */
function niceOf(pid: number, tid = pid): number {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
}

/**
 * The nice value of each thread of process `pid`. A thread listed may end before its stat is read (an
 * earlier test's worker going away): it is left out.
 */
function threadNices(pid: number): Map<string, number> {
  const nices = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      nices.set(tid, niceOf(pid, Number(tid)))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
  }
  return nices
}

/** The threads of this process that run at `nice`. */
function threadsAt(nice: number): Set<string> {
  return new Set([...threadNices(process.pid)].filter(([, n]) => n === nice).map(([tid]) => tid))
}

/** The threads in `after` that were not in `before`. */
function added(before: Set<string>, after: Set<string>): string[] {
  return [...after].filter((tid) => !before.has(tid))
}

t.test('a worker thread lowers itself, and only itself', { skip }, async (t) => {
  const before = threadsAt(background)
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads')
     const { readlinkSync } = require('node:fs')
     parentPort.once('message', () => parentPort.postMessage(Number(readlinkSync('/proc/thread-self').split('/').pop())))`,
    { eval: true },
  )
  t.teardown(() => worker.terminate())
  worker.postMessage('tid?')
  const tid = await new Promise<number>((resolve) => worker.once('message', resolve))
  t.equal(niceOf(process.pid, tid), ours, 'a new thread starts at the process priority')
  t.notOk(lowerThisThreadPriority(), 'the main thread is never lowered')
  t.equal(niceOf(process.pid), ours, 'the main thread is as it was')
  t.same(added(before, threadsAt(background)), [], 'no thread was lowered')
})

t.test('the body worker parses below the API thread', { skip }, async (t) => {
  const audio = Buffer.alloc(300_000, 1).toString('base64')
  const { parsed } = await parseOffThread(Buffer.from(JSON.stringify({ audio })), {
    maxDepth: 4,
    base64Fields: ['audio'],
  })
  t.ok(parsed.ok, 'the body was parsed in the worker')
  t.ok(threadsAt(background).size >= 1, `a thread of this process runs at nice ${background}`)
  t.equal(niceOf(process.pid), ours, 'the API thread keeps its priority')
})

t.test('the turn-detection thread runs below the API thread', { skip }, async (t) => {
  const before = threadsAt(background)
  const pool = new TurnDetectorPool()
  t.teardown(() => pool.clear())
  const detector = pool.acquire({
    model: path.resolve(import.meta.dirname, '../../assets/silero-vad/silero_vad.onnx'),
    threshold: 0.5,
    silenceDurationMs: 500,
    minSpeechSeconds: 0.25,
    maxUtteranceSeconds: 30,
    origin: 0,
  })
  t.equal((await detector.accept(new Float32Array(2 * WINDOW))).length, 2, 'the detector answered')
  t.equal(added(before, threadsAt(background)).length, 1, `its thread runs at nice ${background}`)
  t.equal(niceOf(process.pid), ours, 'the API thread keeps its priority')
})

t.test("an engine host runs at the API process's priority, its threads too", { skip }, async (t) => {
  // Decoding is what a person waits for: lowered, it waited behind every busy program on the machine
  // (lib/thread-priority.ts).
  const runner = createEngineRunner(fixtureRunner('fake'))
  t.teardown(() => runner.close())
  const pid = pidOf(await runner.transcribe(request(1)))
  t.not(pid, process.pid, 'the request ran in a host process')
  const threads = [...threadNices(pid).values()]
  t.ok(threads.length > 1, `the host has its runtime's threads (${threads.length})`)
  t.same(
    threads.filter((nice) => nice !== ours),
    [],
    `the host and its threads run at nice ${ours}`,
  )
})
