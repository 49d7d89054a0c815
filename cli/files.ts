/** Files the CLI reads and writes: `-` is stdin/stdout, writes are atomic (temp file, then rename). */
import { randomBytes } from 'node:crypto'
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { CliError } from './cli-error.ts'
import type { CliIO } from './io.ts'

/** Writes `text` to `file` so that readers see the old content or the new one, never a part. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    await writeFile(temp, text)
    await rename(temp, file)
  } catch (err) {
    await rm(temp, { force: true })
    throw new CliError(`Could not write ${file}: ${describeFsError(err)}`)
  }
}

/** The text of `file` (or stdin for `-`), with a message naming the file when it cannot be read. */
export async function readTextInput(file: string, io: CliIO): Promise<string> {
  if (file === '-') {
    const stdin = io.stdin ?? process.stdin
    const chunks: Buffer[] = []
    for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer))
    return Buffer.concat(chunks).toString('utf8')
  }
  try {
    return await readFile(path.resolve(io.cwd, file), 'utf8')
  } catch (err) {
    throw new CliError(`Could not read ${file}: ${describeFsError(err)}`)
  }
}

export function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return 'no such file or directory'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  if (code === 'EISDIR') return 'is a directory'
  if (code === 'ENOTDIR') return 'a parent is not a directory'
  return (err as Error).message
}
