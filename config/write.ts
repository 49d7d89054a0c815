/**
 * Changes a few keys of the config file and leaves the rest as the user wrote it: the other keys and their
 * order, the indentation (tabs, 2 or 4 spaces, or one line) and the final newline. The file is replaced
 * atomically (a temp file beside it, renamed over it), keeping its permissions; a symbolic link (dotfiles
 * kept elsewhere) is followed, so the link stays. A missing file is created, with its folder, readable by
 * its owner only (it may come to hold API keys).
 */
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { errors } from '../errors/catalogue.ts'

/** A config key as a path (`['speech', 'engine']`) and its new value. */
export type ConfigChange = [keys: readonly string[], value: unknown]

export interface ConfigFileEdit {
  /** The file's content after the changes, parsed. */
  content: Record<string, unknown>
  /** True when there was no file. */
  created: boolean
}

/**
 * Reads the file (missing: `{}`), applies the changes and returns the result without writing: the caller
 * checks it first. Throws CONFIG_FILE_CONFLICT when the file is not a JSON object (or a key on the way is
 * not an object), CONFIG_WRITE_FAILED when it cannot be read.
 */
export async function readConfigEdit(
  file: string,
  changes: readonly ConfigChange[],
): Promise<ConfigFileEdit & { text: string }> {
  let text = ''
  let created = false
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw writeFailed(error)
    created = true
  }
  let content: unknown = {}
  if (!created) {
    try {
      content = JSON.parse(text)
    } catch (error) {
      throw errors.CONFIG_FILE_CONFLICT(`it is not valid JSON (${(error as Error).message}); fix it first.`)
    }
  }
  if (!isObject(content))
    throw errors.CONFIG_FILE_CONFLICT('its top level is not a JSON object; fix it first.')
  for (const [keys, value] of changes) setKey(content, keys, value)
  return { content, created, text }
}

/** Writes an edit made by readConfigEdit, formatted as the file was. */
export async function writeConfigEdit(file: string, edit: ConfigFileEdit & { text: string }): Promise<void> {
  const indent = edit.created ? 2 : indentOf(edit.text)
  const trailing = edit.created || edit.text.endsWith('\n') ? '\n' : ''
  const output = `${JSON.stringify(edit.content, null, indent)}${trailing}`
  try {
    // The real file behind a link, so the link is kept.
    const target = edit.created ? file : await realpath(file)
    const dir = path.dirname(target)
    if (edit.created) await mkdir(dir, { recursive: true })
    const mode = edit.created ? 0o600 : (await stat(target)).mode & 0o777
    const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`)
    try {
      await writeFile(temp, output, { mode, flag: 'wx' })
      await chmod(temp, mode)
      await rename(temp, target)
    } catch (error) {
      await rm(temp, { force: true })
      throw error
    }
  } catch (error) {
    throw writeFailed(error)
  }
}

function writeFailed(error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code
  // The code only (EACCES, EROFS, ENOSPC…): the message would name the path, which names the user's home.
  return errors.CONFIG_WRITE_FAILED(`${code ?? 'an unexpected error'}.`, { cause: error })
}

/** The file's indentation: that of its first indented line; none for a file on one line. */
function indentOf(text: string): string | number {
  const match = /\n([ \t]+)\S/.exec(text)
  return match ? (match[1] as string) : 0
}

function setKey(object: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let at = object
  for (const [i, key] of keys.entries()) {
    if (i === keys.length - 1) {
      at[key] = value
      return
    }
    const next = at[key] ?? {}
    if (!isObject(next)) {
      throw errors.CONFIG_FILE_CONFLICT(`${keys.slice(0, i + 1).join('.')} is not an object; fix it first.`)
    }
    at[key] = next
    at = next
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
