/**
 * `DICTUM_TEST_CPU_TRACE=FILE npm test`: each test process appends one line per root test to FILE, the CPU
 * seconds the test took (user + system, the test process and every process below it, from /proc: Linux
 * only), its test file and its name, tab-separated. How the suite's heaviest tests were found (issue 26):
 * CPU seconds survive a busy machine, where wall-clock times do not. Loaded by untracked-children.ts.
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

interface ProcessTicks {
  ppid: number
  /** Clock ticks of the process and of its children it has waited for. */
  ticks: number
}

function processTicks(pid: string): ProcessTicks | null {
  try {
    // Fields after the ")" of the name: 4 ppid; 14-17 utime, stime, cutime, cstime.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    const ticks = fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0)
    return { ppid: Number(fields[1]), ticks }
  } catch {
    return null // gone meanwhile
  }
}

/** CPU seconds of this process and its descendants (the live ones, and those waited for). */
function cpuSeconds(): number {
  const all = new Map<number, ProcessTicks>()
  for (const pid of readdirSync('/proc')) {
    const ticks = /^\d+$/u.test(pid) ? processTicks(pid) : null
    if (ticks) all.set(Number(pid), ticks)
  }
  const ours = new Set([process.pid])
  for (let grew = true; grew; ) {
    grew = false
    for (const [pid, { ppid }] of all) {
      if (!ours.has(pid) && ours.has(ppid)) {
        ours.add(pid)
        grew = true
      }
    }
  }
  let ticks = 0
  for (const pid of ours) ticks += all.get(pid)?.ticks ?? 0
  return ticks / 100
}

export function traceCpuPerRootTest(traceFile: string): void {
  const file = path.relative(process.cwd(), process.argv[1] ?? '')
  let last = cpuSeconds()
  // tap writes a root test's result line ("ok 3 - name # time=…", unindented) to stdout when it ends.
  const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    for (const line of String(chunk).split('\n')) {
      const ended = /^(?:not )?ok \d+ - (.*?)(?: # time=.*)?$/u.exec(line)
      if (!ended) continue
      const now = cpuSeconds()
      appendFileSync(traceFile, `${(now - last).toFixed(2)}\t${file}\t${ended[1]}\n`)
      last = now
    }
    return write(chunk, ...rest)
  }) as typeof process.stdout.write
}
