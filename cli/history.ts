/** `dictum history [--limit N] [--json]`: recent dictations, newest first (GET /v1/history's clamping). */
import { parseArgs } from 'node:util'
import type { HistoryEntry } from '../history/schemas.ts'
import { parseHistoryLimit } from '../history/service.ts'
import { type CliIO, EXIT } from './io.ts'
import { correctCommand } from './learning.ts'
import { GLOBAL_HELP, GLOBAL_OPTIONS } from './options.ts'
import { withServices } from './services.ts'

const OPTIONS = { ...GLOBAL_OPTIONS, limit: { type: 'string', short: 'n' } } as const

export const HISTORY_HELP = `Usage: dictum history [--limit N] [--json]
       dictum history correct ID "text"   (the text you kept; see 'dictum history correct --help')

Shows the most recent dictations, newest first: time (UTC), application, text.

Options:
  -n, --limit N         How many entries (default 100; clamped to 1..1000; not a whole number: 100)
  --json                Print {"count": n, "items": [...]} as GET /v1/history does

${GLOBAL_HELP}
`

export async function historyCommand(args: string[], io: CliIO): Promise<number> {
  if (args[0] === 'correct') return correctCommand(args.slice(1), io)
  const { values } = parseArgs({ args, options: OPTIONS, allowPositionals: false })
  if (values.help) {
    io.stdout.write(HISTORY_HELP)
    return EXIT.ok
  }
  const limit = parseHistoryLimit(values.limit)
  const list = await withServices(values, io, async (app) => app.dictum.history.list(limit))
  if (values.json) io.stdout.write(`${JSON.stringify(list, null, 2)}\n`)
  else for (const entry of list.items) io.stdout.write(`${historyLine(entry)}\n`)
  return EXIT.ok
}

/** `2025-01-31 14:02:03  Slack  text` (line breaks in the text shown as ⏎). */
export function historyLine(entry: HistoryEntry): string {
  const when = entry.timestamp.replace('T', ' ').replace(/\.\d+Z$/, '')
  const text = entry.finalText.replace(/\r?\n/g, ' ⏎ ')
  return [when, entry.appName || '-', text].join('  ')
}
