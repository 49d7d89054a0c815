/**
 * Scheduling priority of the service's worker threads that must not take cores from the API's event loop
 * (issue 28): the body worker that parses large JSON bodies and realtime frames, and the turn-detection
 * thread. On a 2-core machine, a live attack kept the loop waiting for a core while those ran (a CPU profile
 * of the service showed its samples 2–3 ms apart instead of 1, with no long turn of the loop), and
 * `/v1/health` took 80–260 ms to answer. Lowered by a few nice levels, they still get every core the loop
 * does not use.
 *
 * The engine hosts are not lowered: decoding is the work a person waits for. Ten levels down, a dictation
 * beside two busy programs (a build, a browser tab) took 19× as long as alone, against 1.3× at the
 * service's level, and `/v1/health` stayed under 6 ms p99 while they decoded on both cores at either level
 * (`npm run bench -- busy-neighbours`, docs/benchmarks.md).
 */
import { readlinkSync } from 'node:fs'
import os from 'node:os'

/** Nice levels below the API's (weight ~1/10 of it for the scheduler: 1024 against 110 at +10). */
export const BACKGROUND_NICE_STEPS = 10

const LOWEST = 19

/**
 * Lowers the calling thread (a worker thread) `steps` nice levels. Linux schedules threads one by one and
 * keeps a nice value for each, which `setpriority` sets given the thread's id (from /proc/thread-self).
 * Elsewhere a thread has no id of its own to pass: nothing is changed (the call would lower the whole
 * process, the API's thread with it).
 */
export function lowerThisThreadPriority(steps = BACKGROUND_NICE_STEPS): boolean {
  let tid: number
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
  } catch {
    return false
  }
  if (!Number.isInteger(tid) || tid <= 0 || tid === process.pid) return false
  try {
    os.setPriority(tid, Math.min(LOWEST, os.getPriority(tid) + steps))
    return true
  } catch {
    return false
  }
}
