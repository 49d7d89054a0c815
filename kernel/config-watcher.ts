/**
 * Watches the config file for edits. Editors often replace the file (write a temp file, rename it over), so
 * the folder is watched and events are filtered by name; bursts are debounced into one reload.
 */
import { existsSync, type FSWatcher, watch } from 'node:fs'
import path from 'node:path'

export class ConfigWatcher {
  #watcher: FSWatcher | null = null
  #timer: NodeJS.Timeout | null = null

  /** Starts watching; returns false when the folder does not exist (nothing to watch). */
  start(file: string, onChange: () => void, debounceMs = 150): boolean {
    const dir = path.dirname(file)
    if (!existsSync(dir)) return false
    const name = path.basename(file)
    this.#watcher = watch(dir, (_event, changed) => {
      if (changed !== null && changed !== name) return
      if (this.#timer) clearTimeout(this.#timer)
      this.#timer = setTimeout(() => {
        this.#timer = null
        onChange()
      }, debounceMs)
    })
    this.#watcher.on('error', () => this.close())
    return true
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
    this.#watcher?.close()
    this.#watcher = null
  }
}
