/**
 * A small filesystem of the test's own (a tmpfs, mounted for it; this needs root, as a CI container has),
 * to make SQLite's writes really fail for want of space: `fill()` takes every free byte with a filler file,
 * `free()` removes it. Unmounted (lazily, so a file still open does not keep it) at the test's end.
 */
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'

export interface SmallDisk {
  /** Its mount point, empty at first. */
  dir: string
  /** Writes a filler file until the disk has no space left. */
  fill(): void
  /** Removes the filler. */
  free(): void
}

/** Why a test needing a small disk is skipped here, or false (the `skip` option of `t.test`). */
export const smallDiskSkip: string | false =
  process.getuid?.() === 0 ? false : 'mounting a small tmpfs needs root'

/** Mounts a tmpfs of `megabytes`. */
export function mountSmallDisk(t: Test, megabytes: number): SmallDisk {
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-small-disk-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'pipe' })
  } catch (error) {
    rmdirSync(dir)
    throw error
  }
  t.teardown(() => {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' })
    rmdirSync(dir)
  })
  const filler = path.join(dir, 'filler')
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a')
      const chunk = Buffer.alloc(64 * 1024, 1)
      try {
        // A write short of space writes what fits; the next one fails.
        for (;;) writeSync(fd, chunk)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
      } finally {
        closeSync(fd)
      }
    },
    free() {
      rmSync(filler, { force: true })
    },
  }
}
