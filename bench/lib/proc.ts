/** What the benches read of a process from Linux's /proc: its children, its memory. */
import { readdirSync, readFileSync } from 'node:fs'

/** The processes `pid` started (a service's engine hosts), from each process's parent pid. */
export function childrenOf(pid: number): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // Field 4 (after the command name in parentheses, then the state) is the parent's pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid) found.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/** VmRSS of a process in MB, or 0 once it is gone. */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}
