/**
 * `dictum models list|pull|remove|verify`: the CLI side of model management. Exit codes: 0 ok, 1 failure,
 * 2 usage error. Progress and diagnostics go to stderr, results to stdout.
 */
import { isDictumError } from '../errors/catalogue.ts'
import { describeListItem } from '../models/describe.ts'
import { formatBytes } from '../models/format-bytes.ts'
import type { ModelListItem, ModelManager } from '../models/manager.ts'
import { ProgressBar } from './progress-bar.ts'

/** What `dictum models` writes to: the CLI's streams (see cli/io.ts) and Ctrl-C. */
export interface ModelsIO {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
  /** True when stderr is a terminal: the progress bar, drawn on stderr, is redrawn in place. */
  stderrIsTTY: boolean
  /** Aborts a running pull (Ctrl-C); its partial download is kept for a later resume. */
  signal?: AbortSignal | undefined
}

const USAGE = `Usage: dictum models <command>

Commands:
  list [--json]              Show the catalog and what is installed
  pull <id> [--from <src>]   Download, check and install a model
  remove <id>                Delete an installed model
  verify <id>                Check an installed model's files

Run \`dictum models <command> --help\` for details.
`

const HELP: Record<string, string> = {
  list: `Usage: dictum models list [--json]

Shows every model of the catalog: id, engine and family, download size, whether it
boosts the dictionary's custom words, and whether (and how big) it is installed.

  --json   Print {"count": n, "items": [...]} instead of a table
`,
  pull: `Usage: dictum models pull <id> [--from <url-or-file>] [--force]

Downloads the model (resuming an interrupted download), checks its SHA-256 against the
catalog, unpacks it and installs it atomically under <dataDir>/models/<id>/.

  --from <src>   A mirror URL, or a local archive (path or file: URL) for offline installs
  --force        Pull again even when the model is installed (repairs it)
`,
  remove: `Usage: dictum models remove <id>

Deletes an installed model. Exits with 1 when it is not installed.
`,
  verify: `Usage: dictum models verify <id>

Checks that every file of an installed model is present, with the size it had when it was
installed (and the size the catalog knows, where it does).
`,
}

class UsageError extends Error {}

interface Parsed {
  positional: string[]
  flags: Map<string, string | true>
}

export async function modelsCommand(args: string[], io: ModelsIO, manager: ModelManager): Promise<number> {
  const [command, ...rest] = args
  if (command === undefined) return usage(io, USAGE)
  if (command === '--help' || command === '-h' || command === 'help') {
    io.stdout.write(USAGE)
    return 0
  }
  const help = HELP[command]
  if (help === undefined) return usage(io, `Unknown command: models ${command}\n\n${USAGE}`)
  try {
    const parsed = parse(rest, command === 'pull' ? ['--from'] : [])
    if (parsed.flags.has('--help')) {
      io.stdout.write(help)
      return 0
    }
    return await dispatch(command, parsed, io, manager)
  } catch (error) {
    if (error instanceof UsageError) return usage(io, `${error.message}\n\n${help}`)
    const message = isDictumError(error) || error instanceof Error ? error.message : String(error)
    io.stderr.write(`error: ${message}\n`)
    return 1
  }
}

function dispatch(command: string, parsed: Parsed, io: ModelsIO, manager: ModelManager): Promise<number> {
  if (command === 'list') {
    allowFlags(parsed, ['--json'])
    if (parsed.positional.length > 0) throw new UsageError('models list takes no arguments')
    return list(io, manager, parsed.flags.has('--json'))
  }
  const id = singleId(parsed, command)
  if (command === 'pull') {
    allowFlags(parsed, ['--from', '--force'])
    const from = parsed.flags.get('--from')
    return pull(io, manager, id, typeof from === 'string' ? from : undefined, parsed.flags.has('--force'))
  }
  allowFlags(parsed, [])
  return command === 'remove' ? remove(io, manager, id) : verify(io, manager, id)
}

async function list(io: ModelsIO, manager: ModelManager, json: boolean): Promise<number> {
  const items = await manager.list()
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ count: items.length, items: items.map(describeListItem) }, null, 2)}\n`,
    )
    return 0
  }
  const header = ['ID', 'ENGINE', 'FAMILY', 'SIZE', 'CUSTOM WORDS', 'INSTALLED']
  const rows = items.map((item) => row(item))
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((cells) => cells[column]?.length ?? 0)),
  )
  const format = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd()
  io.stdout.write(`${[format(header), ...rows.map(format)].join('\n')}\n`)
  return 0
}

function row(item: ModelListItem): string[] {
  const { entry } = item
  const size = `${entry.sizeExact ? '' : '~'}${formatBytes(entry.sizeBytes)}`
  const installed = item.installed ? `yes (${formatBytes(item.sizeOnDisk ?? 0)} on disk)` : 'no'
  return [entry.id, entry.engine, entry.family, size, entry.customWords ? 'yes' : 'no', installed]
}

async function pull(
  io: ModelsIO,
  manager: ModelManager,
  id: string,
  from: string | undefined,
  force: boolean,
) {
  const entry = manager.get(id)
  if (!force && from === undefined && (await manager.isInstalled(id))) {
    io.stdout.write(`${id} is already installed at ${manager.pathOf(id)} (use --force to pull it again).\n`)
    return 0
  }
  await manager.cleanupStale()
  const source = manager.sourceOf(id, from)
  io.stderr.write(`Pulling ${id} (${entry.displayName}, ${formatBytes(entry.sizeBytes)}) from ${source}\n`)
  const bar = new ProgressBar({ stream: io.stderr, isTTY: io.stderrIsTTY, label: id })
  try {
    const folder = await manager.pull(id, {
      from,
      signal: io.signal,
      onProgress: (progress) =>
        bar.update({
          current: progress.receivedBytes,
          total: progress.totalBytes,
          rate: progress.bytesPerSecond,
          etaSeconds: progress.etaSeconds,
        }),
    })
    bar.finish()
    const trust = entry.sha256 === null ? 'checksum recorded (the catalog has none)' : 'checksum verified'
    io.stdout.write(`Installed ${id} at ${folder} (${trust}).\n`)
    return 0
  } catch (error) {
    bar.clear()
    throw error
  }
}

async function remove(io: ModelsIO, manager: ModelManager, id: string): Promise<number> {
  if (await manager.remove(id)) {
    io.stdout.write(`Removed ${id}.\n`)
    return 0
  }
  io.stderr.write(`${id} is not installed.\n`)
  return 1
}

async function verify(io: ModelsIO, manager: ModelManager, id: string): Promise<number> {
  const result = await manager.verify(id)
  if (result.ok) {
    io.stdout.write(`${id}: ok\n`)
    return 0
  }
  io.stderr.write(`${id}: ${result.problems.join('; ')}\n`)
  return 1
}

function parse(args: string[], valued: string[]): Parsed {
  const positional: string[] = []
  const flags = new Map<string, string | true>()
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string
    if (arg === '-h') flags.set('--help', true)
    else if (!arg.startsWith('--')) positional.push(arg)
    else if (arg.includes('=')) flags.set(arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1))
    else if (valued.includes(arg)) {
      const value = args[index + 1]
      if (value === undefined || value.length === 0) throw new UsageError(`${arg} needs a value`)
      flags.set(arg, value)
      index += 1
    } else flags.set(arg, true)
  }
  return { positional, flags }
}

function allowFlags(parsed: Parsed, allowed: string[]): void {
  for (const flag of parsed.flags.keys())
    if (!allowed.includes(flag)) throw new UsageError(`Unknown option: ${flag}`)
}

function singleId(parsed: Parsed, command: string): string {
  const [id, ...extra] = parsed.positional
  if (id === undefined) throw new UsageError(`models ${command} needs a model id`)
  if (extra.length > 0) throw new UsageError(`models ${command} takes one model id`)
  return id
}

function usage(io: ModelsIO, text: string): number {
  io.stderr.write(text.endsWith('\n') ? text : `${text}\n`)
  return 2
}
