/**
 * `dictum history correct ID "text"` and `dictum dictionary suggestions [--accept ID | --dismiss ID |
 * --replay ID]`: corrections and the suggestions learned from them, as POST /v1/history/{id}/correction and
 * /v1/dictionary/suggestions do (learning/service.ts, in this process).
 */
import { parseArgs } from 'node:util'
import type { Suggestion } from '../learning/schemas.ts'
import { usageError } from './cli-error.ts'
import { type CliIO, EXIT } from './io.ts'
import { GLOBAL_HELP, GLOBAL_OPTIONS } from './options.ts'
import { withServices } from './services.ts'

export const CORRECT_HELP = `Usage: dictum history correct ID "text"

Stores the text you kept for a dictation (its correctedText) and prints the suggestions the
correction made: a custom word where the engine misheard, a replacement rule where the words
were only written otherwise. A rewrite (other words, same meaning) teaches nothing.

${GLOBAL_HELP}
`

export const SUGGESTIONS_HELP = `Usage: dictum dictionary suggestions [--accept ID | --dismiss ID | --replay ID]

Lists what dictum learned from your corrections, with each suggestion's replay figures.
  --replay ID    Transcribe the kept recordings again with the suggestion (fixed, broken, WER)
  --accept ID    Add it to the dictionary
  --dismiss ID   Do not suggest it again
  --json         Print JSON as the API answers

${GLOBAL_HELP}
`

export async function correctCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: GLOBAL_OPTIONS, allowPositionals: true })
  if (values.help) {
    io.stdout.write(CORRECT_HELP)
    return EXIT.ok
  }
  const [id, text, ...extra] = positionals
  if (id === undefined || text === undefined) throw usageError('history correct needs an ID and the text.')
  if (extra.length > 0) throw usageError(`Unexpected argument: ${extra[0]}.`)
  const result = await withServices(values, io, (app) => app.dictum.learning.correct(id, { text }))
  if (values.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
  else {
    io.stdout.write(`corrected ${result.entry.id}\n`)
    for (const suggestion of result.suggestions) io.stdout.write(`${suggestionLine(suggestion)}\n`)
  }
  return EXIT.ok
}

const SUGGESTION_OPTIONS = {
  ...GLOBAL_OPTIONS,
  accept: { type: 'string' },
  dismiss: { type: 'string' },
  replay: { type: 'string' },
} as const

export async function suggestionsCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: SUGGESTION_OPTIONS, allowPositionals: true })
  if (values.help) {
    io.stdout.write(SUGGESTIONS_HELP)
    return EXIT.ok
  }
  if (positionals.length > 0) throw usageError(`Unexpected argument: ${positionals[0]}.`)
  const actions = (['accept', 'dismiss', 'replay'] as const).filter((name) => values[name] !== undefined)
  if (actions.length > 1) throw usageError('Give one of --accept, --dismiss and --replay.')
  const action = actions[0]
  const items = await withServices(values, io, async (app) => {
    const { learning } = app.dictum
    if (action === undefined) return learning.list().items
    const id = values[action] as string
    return [await learning[action](id)]
  })
  if (values.json)
    io.stdout.write(`${JSON.stringify(action ? items[0] : { count: items.length, items }, null, 2)}\n`)
  else for (const suggestion of items) io.stdout.write(`${suggestionLine(suggestion)}\n`)
  return EXIT.ok
}

/** `<id>  customWord "disposed" (heard "until explosion")  pending  evidence 2  replay: fixed 1, broken 0`. */
export function suggestionLine(suggestion: Suggestion): string {
  const entry = suggestion.entry as { text?: string; triggers?: string[]; replacement?: string }
  const what =
    suggestion.kind === 'customWord'
      ? `customWord "${entry.text}"`
      : `replacement "${entry.triggers?.join('", "')}" → "${entry.replacement}"`
  const replay = suggestion.replay
    ? `replay: checked ${suggestion.replay.checked}, fixed ${suggestion.replay.fixed}, broken ${suggestion.replay.broken}, WER ${suggestion.replay.werBefore} → ${suggestion.replay.werAfter}`
    : 'not replayed'
  return [
    suggestion.id,
    `${what} (heard "${suggestion.heard}")`,
    suggestion.state,
    `evidence ${suggestion.evidence.length}`,
    replay,
  ].join('  ')
}
