/**
 * Scheduling priority of work that must not take cores from the API's event loop (issue 28): engine hosts
 * and the worker threads that decode, parse and detect turns. On a 2-core machine, a live attack kept the
 * loop waiting for a core while those ran (a CPU profile of the service showed its samples 2–3 ms apart
 * instead of 1, with no long turn of the loop), and `/v1/health` took 80–260 ms to answer. Lowered by a few
 * nice levels, they still get every core the loop does not use.
 */
import { readdirSync, readlinkSync } from 'node:fs'
import os from 'node:os'

/** Nice levels below the API's (weight ~1/10 of it for the scheduler: 1024 against 110 at +10). */
export const BACKGROUND_NICE_STEPS = 10

const LOWEST = 19

/**
 * Lowers the process `pid` `steps` nice levels below this process: its main thread, and on Linux (a nice
 * value per thread) each thread it has started so far; the threads it starts later inherit their creator's.
 * Call it again once the process has started its runtime's threads. False when it could not be changed (the
 * process is gone, or this is not permitted): it runs at the API's priority then.
 */
export function lowerProcessPriority(pid: number, steps = BACKGROUND_NICE_STEPS): boolean {
  const nice = Math.min(LOWEST, os.getPriority() + steps)
  let threads: number[] = []
  try {
    threads = readdirSync(`/proc/${pid}/task`).map(Number)
  } catch {
    // no /proc (not Linux): the process's priority is all there is to set
  }
  try {
    os.setPriority(pid, nice)
    for (const tid of threads) if (tid !== pid) os.setPriority(tid, nice)
    return true
  } catch {
    return false
  }
}

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
