/**
 * Unpacks a model archive into an empty folder with the system tools (`tar` with bzip2, `unzip`), refusing
 * anything that could write outside the folder: absolute paths, `..`, links and special files.
 *
 * Why the system tools: GNU tar and Info-ZIP unzip are on every Debian/Ubuntu (the project installs `bzip2`
 * and `unzip`), stream archives of several GB without loading them into memory, and add no npm dependency.
 * Their own protections (tar drops `..` members and leading `/`; symlinks are created last) are kept, and every
 * entry is checked again here: tar's verbose listing during extraction, zip's listing before it, and a walk of
 * the extracted tree after it.
 */
import { spawn } from 'node:child_process'
import { lstat, readdir } from 'node:fs/promises'
import path from 'node:path'
import { errors } from '../errors/catalogue.ts'
import type { ArchiveKind } from '../kernel/contracts/catalog.ts'

interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

const OUTPUT_LIMIT = 4 * 1024 * 1024

export async function extractArchive(
  kind: Exclude<ArchiveKind, 'onnx'>,
  archivePath: string,
  destination: string,
  signal?: AbortSignal,
): Promise<void> {
  const name = path.basename(archivePath)
  if (kind === 'tar.bz2') await extractTar(name, archivePath, destination, signal)
  else await extractZip(name, archivePath, destination, signal)
  await checkTree(name, destination)
}

async function extractTar(name: string, archivePath: string, destination: string, signal?: AbortSignal) {
  const result = await run(
    'tar',
    [
      '-x',
      '-v',
      '-v',
      '-j',
      '-f',
      archivePath,
      '-C',
      destination,
      '--no-same-owner',
      '--no-same-permissions',
    ].concat(['--quoting-style=escape']),
    signal,
  )
  // The listing is checked even when tar failed: an unsafe entry is the more useful message.
  for (const line of lines(result.stdout)) checkEntry(name, line.charAt(0), tarEntryName(line))
  if (/Removing leading|member name contains '\.\.'/i.test(result.stderr)) {
    throw errors.MODEL_INVALID(`${name} has an entry with an absolute path or '..'`)
  }
  if (/bzip2: Cannot exec|Cannot exec.*bzip2/i.test(result.stderr)) {
    throw errors.MODEL_DOWNLOAD_FAILED(
      'the `bzip2` command is needed to unpack models (apt-get install bzip2)',
    )
  }
  if (result.code !== 0) throw errors.MODEL_INVALID(`${name} could not be unpacked: ${tail(result.stderr)}`)
}

async function extractZip(name: string, archivePath: string, destination: string, signal?: AbortSignal) {
  const names = await run('unzip', ['-Z1', archivePath], signal)
  const details = await run('unzip', ['-Z', archivePath], signal)
  if (names.code !== 0 || details.code !== 0) {
    throw errors.MODEL_INVALID(
      `${name} is not a readable zip archive: ${tail(names.stderr || details.stderr)}`,
    )
  }
  const entryNames = lines(names.stdout)
  // `unzip -Z` prints a two-line header and a one-line summary around one line per entry.
  const entryLines = lines(details.stdout).slice(2, -1)
  if (entryLines.length !== entryNames.length)
    throw errors.MODEL_INVALID(`${name} has entries that cannot be listed`)
  entryNames.forEach((entry, index) => {
    checkEntry(name, (entryLines[index] ?? '?').charAt(0), entry)
  })
  const result = await run('unzip', ['-q', '-n', archivePath, '-d', destination], signal)
  if (result.code !== 0) throw errors.MODEL_INVALID(`${name} could not be unpacked: ${tail(result.stderr)}`)
}

/** Only plain files and folders, at relative paths without `..`. */
function checkEntry(archive: string, type: string, entry: string): void {
  if (type !== '-' && type !== 'd') {
    throw errors.MODEL_INVALID(
      `${archive} contains a link or special file (${entry}); refusing to install it`,
    )
  }
  const parts = entry.split('/')
  if (entry.startsWith('/') || parts.includes('..') || /^[A-Za-z]:/.test(entry) || entry.includes('\\')) {
    throw errors.MODEL_INVALID(
      `${archive} has an entry outside its folder (${entry}); refusing to install it`,
    )
  }
}

/** The name at the end of a `tar -tvv` line: `mode owner/group size date time name`. */
function tarEntryName(line: string): string {
  const match = /^\S+\s+\S+\s+\S+\s+\S+\s+\S+\s(.*)$/.exec(line)
  return match?.[1] ?? line
}

/** Whatever the tools did, the result must be folders and regular files only. */
async function checkTree(archive: string, folder: string): Promise<void> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name)
    const info = await lstat(full)
    if (info.isDirectory()) await checkTree(archive, full)
    else if (!info.isFile()) {
      throw errors.MODEL_INVALID(
        `${archive} unpacked a link or special file (${entry.name}); refusing to install it`,
      )
    }
  }
}

function run(command: string, args: string[], signal?: AbortSignal): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(signal ? { signal } : {}) })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < OUTPUT_LIMIT) stdout += chunk.toString('utf8')
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < OUTPUT_LIMIT) stderr += chunk.toString('utf8')
    })
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (signal?.aborted) reject(signal.reason ?? error)
      else if (error.code === 'ENOENT') {
        const fix = command === 'tar' ? 'apt-get install tar bzip2' : 'apt-get install unzip'
        reject(errors.MODEL_DOWNLOAD_FAILED(`the \`${command}\` command is needed to unpack models (${fix})`))
      } else reject(error)
    })
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line.length > 0)
}

function tail(text: string): string {
  const trimmed = text.trim()
  return trimmed.length > 300 ? `…${trimmed.slice(-300)}` : trimmed || 'unknown error'
}
