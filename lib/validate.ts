/** Checks a request payload against its TypeBox schema and names the first problem with its path. */
import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/** `/entries/2/triggers/0` -> `entries[2].triggers[0]` */
export function formatPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('')
}

/** The first schema violation as `path: message`, or null when the value conforms. */
export function firstSchemaProblem(schema: TSchema, value: unknown): string | null {
  const first = Value.Errors(schema, value).First()
  if (!first) return null
  const where = formatPath(first.path)
  const message = first.message.charAt(0).toLowerCase() + first.message.slice(1)
  return where === '' ? `the body: ${message}` : `${where}: ${message}`
}

/** Returns the value typed by the schema, or throws the error `fail(problem)` builds. */
export function checkPayload<S extends TSchema>(
  schema: S,
  value: unknown,
  fail: (problem: string) => Error,
): Static<S> {
  const problem = firstSchemaProblem(schema, value)
  if (problem !== null) throw fail(`${problem}.`)
  return value as Static<S>
}

/** A UTF-16 surrogate without its pair: not text (SQLite stores it as WTF-8 and reads it back as U+FFFD). */
const LONE_SURROGATE = /\p{Cs}/u

/** True when `text` is well-formed Unicode (no lone surrogate). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text)
}

/**
 * The one check of text that will be stored (dictionary entries, job fields…): each of `texts` must be
 * well-formed, else `fail` gets `<field> is not valid Unicode text (a lone surrogate).` Two different lone
 * surrogates would be stored as the same U+FFFD and read back garbled.
 */
export function checkStoredText(
  texts: string | readonly string[],
  field: string,
  fail: (d: string) => Error,
): void {
  const list = typeof texts === 'string' ? [texts] : texts
  if (!list.every(isWellFormedText)) throw fail(`${field} is not valid Unicode text (a lone surrogate).`)
}
