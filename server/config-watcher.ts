/**
 * Watches the config file for edits. Editors often replace the file (write a temp file, rename it over), so
 * the folder is watched and events are filtered by name; bursts are debounced into one reload. A folder that
 * does not exist yet (no config file at start) is waited for: the nearest existing parent is watched until
 * the folder appears, then the folder itself.
 */
import { existsSync, type FSWatcher, watch } from 'node:fs'
import path from 'node:path'

export class ConfigWatcher {
  #watcher: FSWatcher | null = null
  #timer: NodeJS.Timeout | null = null
  #closed = false

  /** Starts watching `file` (whether or not it or its folder exists yet). */
  start(file: string, onChange: () => void, debounceMs = 150): void {
    this.#closed = false
    const dir = path.dirname(file)
    const changed = () => {
      if (this.#timer) clearTimeout(this.#timer)
      this.#timer = setTimeout(() => {
        this.#timer = null
        onChange()
      }, debounceMs)
    }
    if (existsSync(dir)) {
      const name = path.basename(file)
      this.#watch(dir, (changedName) => {
        if (changedName === null || changedName === name) changed()
      })
      return
    }
    // Wait for the folder: watch the nearest parent that exists, and start again from wherever a new
    // folder on the way appears (the folder itself at last: then a file already there counts as an edit).
    const parent = nearestExisting(dir)
    this.#watch(parent, () => {
      if (this.#closed || (!existsSync(dir) && nearestExisting(dir) === parent)) return
      this.#watcher?.close()
      this.#watcher = null
      this.start(file, onChange, debounceMs)
      if (existsSync(file)) changed()
    })
  }

  #watch(dir: string, onEvent: (name: string | null) => void): void {
    try {
      this.#watcher = watch(dir, (_event, name) => onEvent(name))
      this.#watcher.on('error', () => this.close())
    } catch {
      this.#watcher = null
    }
  }

  close(): void {
    this.#closed = true
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
    this.#watcher?.close()
    this.#watcher = null
  }
}

/** The closest ancestor of `dir` that exists. */
function nearestExisting(dir: string): string {
  let at = path.dirname(dir)
  while (!existsSync(at) && path.dirname(at) !== at) at = path.dirname(at)
  return at
}
