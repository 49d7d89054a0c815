/**
 * One pull of a model at a time across processes (a CLI `models pull` while the server auto-pulls the same
 * model would otherwise write into the same `.part` file). The lock is `<modelsDir>/.partial/<id>.lock`
 * holding the owner's pid; a lock whose process is gone is taken over.
 */
import { open, readFile, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { errors } from '../errors/catalogue.ts'

export interface PullLock {
  release(): Promise<void>
}

export function lockPath(partialDir: string, id: string): string {
  return path.join(partialDir, `${id}.lock`)
}

export async function acquirePullLock(partialDir: string, id: string): Promise<PullLock> {
  const file = lockPath(partialDir, id)
  for (let tries = 0; tries < 2; tries += 1) {
    try {
      const handle = await open(file, 'wx')
      await handle.writeFile(String(process.pid))
      await handle.close()
      return { release: () => rm(file, { force: true }) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const owner = await lockOwner(file)
    // A lock without a pid yet may be one another process is writing this very moment.
    const busy = owner === null ? await isFresh(file) : isAlive(owner)
    if (busy) {
      throw errors.MODEL_DOWNLOAD_FAILED(
        `${id}: another dictum process (pid ${owner ?? '?'}) is already pulling it`,
      )
    }
    await rm(file, { force: true })
  }
  // The lock file is not named: over the API this message must not reveal the data directory (issue 16).
  throw errors.MODEL_DOWNLOAD_FAILED(`${id}: could not take the download lock (models/.partial/${id}.lock)`)
}

/** The pid in a lock file, or null when it cannot be read. */
export async function lockOwner(file: string): Promise<number | null> {
  const text = await readFile(file, 'utf8').catch(() => '')
  return /^\d+$/.test(text.trim()) ? Number(text.trim()) : null
}

async function isFresh(file: string): Promise<boolean> {
  const info = await stat(file).catch(() => null)
  return info !== null && Date.now() - info.mtimeMs < 10_000
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
