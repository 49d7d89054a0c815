/** `dictum engines [--json]`: every speech engine with its status, as GET /v1/engines shows them. */
import { parseArgs } from 'node:util'
import type { EngineStatus } from '../kernel/registry.ts'
import { type CliIO, EXIT } from './io.ts'
import { GLOBAL_HELP, GLOBAL_OPTIONS } from './options.ts'
import { withServices } from './services.ts'

export const ENGINES_HELP = `Usage: dictum engines [--json]

Lists the speech engines (built in and from plugins): id, status, name, and for an engine that
cannot run, why and what to run to fix it. The active engine (speech.engine) is marked with *.
Status: discovered (can load), ready, loading, unavailable (not installed), failed.

Options:
  --json                Print {"active", "count", "items"} as GET /v1/engines does

${GLOBAL_HELP}
`

export async function enginesCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({ args, options: GLOBAL_OPTIONS, allowPositionals: false })
  if (values.help) {
    io.stdout.write(ENGINES_HELP)
    return EXIT.ok
  }
  const list = await withServices(values, io, async (app) => {
    const items = await app.dictum.engines.list()
    return { active: app.dictum.engines.activeId, count: items.length, items }
  })
  if (values.json) {
    io.stdout.write(`${JSON.stringify(list, null, 2)}\n`)
    return EXIT.ok
  }
  const width = Math.max(...list.items.map((e) => e.id.length), 2)
  for (const engine of list.items) io.stdout.write(`${engineLine(engine, width)}\n`)
  return EXIT.ok
}

function engineLine(engine: EngineStatus, width: number): string {
  const head = `${engine.active ? '*' : ' '} ${engine.id.padEnd(width)}  ${engine.status.padEnd(11)}  ${engine.displayName}`
  const why = engine.reason ? `\n    ${engine.reason}${engine.fix ? ` (fix: ${engine.fix})` : ''}` : ''
  return head + why
}
