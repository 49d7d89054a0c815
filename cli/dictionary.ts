/**
 * `dictum dictionary export <file>` and `dictum dictionary import <file> [--mode append|replace]`: the whole
 * dictionary as one JSON file `{"replacements": [...], "customWords": [...]}`. An import is atomic: a bad
 * entry anywhere changes nothing, and the message names the entry.
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import type { DictionaryExport } from '../dictionary/service.ts'
import { isDictumError } from '../errors/catalogue.ts'
import { CliError, usageError } from './cli-error.ts'
import { readTextInput, writeFileAtomic } from './files.ts'
import { type CliIO, EXIT } from './io.ts'
import { suggestionsCommand } from './learning.ts'
import { GLOBAL_HELP, GLOBAL_OPTIONS } from './options.ts'
import { withServices } from './services.ts'

const OPTIONS = { ...GLOBAL_OPTIONS, mode: { type: 'string' } } as const

export const DICTIONARY_HELP = `Usage: dictum dictionary export <file>
       dictum dictionary import <file> [--mode append|replace]
       dictum dictionary suggestions [--accept ID | --dismiss ID | --replay ID]

The file is JSON: {"replacements": [...], "customWords": [...]}, the entries as the API lists
them (GET /v1/dictionary/replacements and /custom-words). '-' is stdout (export) or stdin (import).

  export <file>         Write the whole dictionary (atomically: the file is complete or untouched)
  import <file>         Read a file written by export (or by hand) into the dictionary:
    --mode append       (default) the API's append mode: an entry with the id, else the same
                        replacement (custom word: the same text), is updated where it stands;
                        other entries are added at the end ('merge', its former name, still works)
    --mode replace      Both lists become the file's lists (the file must have both)
  --json                After an import, print the whole dictionary as JSON

An import checks every entry first: one bad entry (or too many entries) rejects the whole file,
the error names it (e.g. replacements[3]) and nothing changes. Exit status: 0 ok, 1 failure
(unreadable or invalid file), 2 usage error.

${GLOBAL_HELP}
`

export async function dictionaryCommand(args: string[], io: CliIO): Promise<number> {
  if (args[0] === 'suggestions') return suggestionsCommand(args.slice(1), io)
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true })
  const [action, file, ...extra] = positionals
  if (values.help || action === 'help') {
    io.stdout.write(DICTIONARY_HELP)
    return EXIT.ok
  }
  if (action !== 'export' && action !== 'import')
    throw usageError(
      `${action === undefined ? 'No' : `Unknown`} dictionary command${action ? ` "${action}"` : ''}: use export or import (see 'dictum dictionary --help').`,
    )
  if (file === undefined)
    throw usageError(`dictionary ${action} needs a file ('-' for std${action === 'export' ? 'out' : 'in'}).`)
  if (extra.length > 0) throw usageError(`Unexpected argument: ${extra[0]}.`)
  if (values.mode !== undefined && action === 'export') throw usageError('--mode applies to import only.')
  if (action === 'export') return exportDictionary(values, file, io)
  // 'merge' was this option's name before it took the API's word; scripts using it keep working.
  const mode = values.mode === undefined || values.mode === 'merge' ? 'append' : values.mode
  if (mode !== 'append' && mode !== 'replace')
    throw usageError(`Unknown --mode "${mode}" (use append or replace).`)
  return importDictionary(values, file, mode, io)
}

async function exportDictionary(values: Record<string, unknown>, file: string, io: CliIO): Promise<number> {
  const data = await withServices(values, io, async (app) => app.dictum.dictionary.export())
  const text = `${JSON.stringify(data, null, 2)}\n`
  if (file === '-') io.stdout.write(text)
  else await writeFileAtomic(path.resolve(io.cwd, file), text)
  return EXIT.ok
}

async function importDictionary(
  values: Record<string, unknown>,
  file: string,
  mode: 'append' | 'replace',
  io: CliIO,
): Promise<number> {
  const name = file === '-' ? 'stdin' : file
  const data = parseExport(await readTextInput(file, io), name, mode)
  const result = await withServices(values, io, async (app) => {
    try {
      return await app.dictum.dictionary.import(data, mode)
    } catch (err) {
      if (isDictumError(err) && err.statusCode === 400)
        throw new CliError(`${name}: ${namedEntries(err.message)}`)
      // Storing failed (database busy, disk full…): nothing changed, and the import failed (exit 1).
      if (isDictumError(err)) throw new CliError(err.message)
      throw err
    }
  })
  if (values.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
  else
    io.stderr.write(
      `Imported ${name} (${mode}): the dictionary now has ${plural(result.replacements.length, 'replacement rule')} and ${plural(result.customWords.length, 'custom word')}.\n`,
    )
  return EXIT.ok
}

/** The file's JSON, checked for the export shape (so a wrong file is not read as an empty dictionary). */
function parseExport(text: string, name: string, mode: 'append' | 'replace'): Partial<DictionaryExport> {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw new CliError(`${name}: invalid JSON (${(err as Error).message}).`)
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new CliError(`${name}: expected a JSON object {"replacements": [...], "customWords": [...]}.`)
  const object = data as Record<string, unknown>
  const keys = ['replacements', 'customWords'] as const
  for (const key of keys) {
    if (object[key] !== undefined && !Array.isArray(object[key]))
      throw new CliError(`${name}: "${key}" must be an array.`)
  }
  const unknown = Object.keys(object).filter((k) => !(keys as readonly string[]).includes(k))
  if (unknown.length > 0)
    throw new CliError(`${name}: unknown key "${unknown[0]}" (expected replacements, customWords).`)
  const present = keys.filter((k) => object[k] !== undefined)
  if (present.length === 0)
    throw new CliError(`${name}: neither "replacements" nor "customWords" is present.`)
  if (mode === 'replace' && present.length < 2)
    throw new CliError(
      `${name}: --mode replace needs both "replacements" and "customWords" (an empty list clears one).`,
    )
  return object as Partial<DictionaryExport>
}

/** The service names entries of a payload `entries[i]`; in a file they are `replacements[i]` / `customWords[i]`. */
function namedEntries(message: string): string {
  const list = message.startsWith('Invalid custom words') ? 'customWords' : 'replacements'
  return message.replaceAll('entries[', `${list}[`)
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}
