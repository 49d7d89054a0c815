/**
 * Makes an engine host die with the API process. The IPC `disconnect` event covers a parent that exits
 * while the host is idle; Linux's parent-death signal also covers a host stuck in a busy loop or a long
 * native call, whose event loop would never see `disconnect`.
 */
export async function exitWithParent(parentPid: number): Promise<void> {
  process.on('disconnect', () => process.exit(0))
  if (process.platform === 'linux') await setParentDeathSignal()
  // The parent may have died before the signal was armed: then we are already an orphan.
  if (process.ppid !== parentPid) process.exit(0)
}

const PR_SET_PDEATHSIG = 1
const SIGKILL = 9

async function setParentDeathSignal(): Promise<void> {
  try {
    const { default: koffi } = await import('koffi')
    const libc = koffi.load('libc.so.6')
    const prctl = libc.func('int prctl(int, unsigned long, unsigned long, unsigned long, unsigned long)')
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
  } catch {
    // Not glibc or no koffi: the disconnect handler still covers the common case.
  }
}
