/**
 * Pure dictionary semantics (docs/api-decisions.md "Dictionary"): normalisation of incoming entries, and the append /
 * replace merge. Validation is atomic: the first bad entry throws, naming its index, before anything is stored.
 */
import { randomUUID } from 'node:crypto'
import { errors } from '../../kernel/errors.ts'
import { checkPayload, isWellFormedText } from '../../lib/validate.ts'
import {
  type CustomWord,
  type CustomWordEntry,
  CustomWordsWriteSchema,
  LIMITS,
  type ReplacementEntry,
  type ReplacementRule,
  ReplacementsWriteSchema,
} from './schemas.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

type Mode = 'append' | 'replace'

export interface RulesWrite {
  mode: Mode
  entries: Array<{ id: string | null; triggers: string[]; replacement: string }>
}

export interface WordsWrite {
  mode: Mode
  entries: CustomWord[]
}

function collapse(text: string): string {
  return text.trim().replace(/\s+/gu, ' ')
}

function checkMode(body: Record<string, unknown>, fail: (d: string) => Error): Mode {
  if (body.mode === undefined) return 'append'
  if (body.mode === 'append' || body.mode === 'replace') return body.mode
  throw fail('mode must be "append" or "replace".')
}

function asObject(body: unknown, fail: (d: string) => Error): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw fail('the body must be a JSON object.')
  return body as Record<string, unknown>
}

/** Parses and normalises a replacements write payload (spec 4.2). */
export function parseRulesWrite(body: unknown): RulesWrite {
  const fail = (d: string) => errors.INVALID_REPLACEMENTS(d)
  const object = asObject(body, fail)
  const mode = checkMode(object, fail)
  const payload = checkPayload(ReplacementsWriteSchema, object, fail)
  let raw: ReplacementEntry[]
  let label: (i: number) => string
  if (payload.entries !== undefined) {
    raw = payload.entries
    label = (i) => `entries[${i}]`
  } else if (payload.triggers !== undefined && payload.replacement !== undefined) {
    raw = [
      {
        triggers: payload.triggers,
        replacement: payload.replacement,
        ...(payload.id ? { id: payload.id } : {}),
      },
    ]
    label = () => 'the entry'
  } else {
    throw fail('expected "entries", or "triggers" and "replacement".')
  }
  if (raw.length > LIMITS.maxRules) throw errors.TOO_MANY_REPLACEMENTS(String(raw.length))
  return { mode, entries: raw.map((entry, i) => normaliseRule(entry, label(i), fail)) }
}

/** Refuses text with a lone surrogate (two different ones were stored as one and collided). */
function wellFormed(texts: readonly string[], field: string, fail: (d: string) => Error): void {
  if (!texts.every(isWellFormedText)) throw fail(`${field} is not valid Unicode text (a lone surrogate).`)
}

function normaliseRule(entry: ReplacementEntry, where: string, fail: (d: string) => Error) {
  if (entry.id !== undefined && !UUID.test(entry.id)) throw fail(`${where}.id must be a UUID.`)
  wellFormed(entry.triggers, `${where}.triggers`, fail)
  wellFormed([entry.replacement], `${where}.replacement`, fail)
  const triggers = [...new Set(entry.triggers.map((t) => collapse(t).toLowerCase()).filter((t) => t !== ''))]
  if (triggers.length === 0) throw fail(`${where}.triggers must contain at least one non-blank phrase.`)
  if (triggers.length > LIMITS.maxTriggersPerRule) {
    throw fail(`${where}.triggers has more than ${LIMITS.maxTriggersPerRule} phrases.`)
  }
  if (triggers.some((t) => t.length > LIMITS.maxTriggerLength)) {
    throw fail(`${where}.triggers has a phrase longer than ${LIMITS.maxTriggerLength} characters.`)
  }
  if (entry.replacement.trim() === '') throw fail(`${where}.replacement must not be blank.`)
  if (entry.replacement.length > LIMITS.maxReplacementLength) {
    throw fail(`${where}.replacement is longer than ${LIMITS.maxReplacementLength} characters.`)
  }
  return { id: entry.id?.toLowerCase() ?? null, triggers, replacement: entry.replacement }
}

/** Parses and normalises a custom-words write payload (spec 4.4). */
export function parseWordsWrite(body: unknown): WordsWrite {
  const fail = (d: string) => errors.INVALID_CUSTOM_WORDS(d)
  const object = asObject(body, fail)
  const mode = checkMode(object, fail)
  const payload = checkPayload(CustomWordsWriteSchema, object, fail)
  let raw: CustomWordEntry[]
  let label: (i: number) => string
  if (payload.entries !== undefined) {
    raw = payload.entries
    label = (i) => `entries[${i}]`
  } else if (payload.text !== undefined) {
    raw = [{ text: payload.text, weight: payload.weight ?? null, aliases: payload.aliases ?? [] }]
    label = () => 'the entry'
  } else {
    throw fail('expected "entries", or "text".')
  }
  if (raw.length > LIMITS.maxWords) throw errors.TOO_MANY_CUSTOM_WORDS(String(raw.length))
  return { mode, entries: raw.map((entry, i) => normaliseWord(entry, label(i), fail)) }
}

function normaliseWord(entry: CustomWordEntry, where: string, fail: (d: string) => Error): CustomWord {
  wellFormed([entry.text], `${where}.text`, fail)
  wellFormed(entry.aliases ?? [], `${where}.aliases`, fail)
  const text = collapse(entry.text)
  if (text === '') throw fail(`${where}.text must not be blank.`)
  if (text.length > LIMITS.maxWordLength)
    throw fail(`${where}.text is longer than ${LIMITS.maxWordLength} characters.`)
  const weight = entry.weight ?? null
  if (weight !== null && !(Number.isFinite(weight) && weight > 0 && weight <= LIMITS.maxWeight)) {
    throw fail(`${where}.weight must be null or a number greater than 0 and at most ${LIMITS.maxWeight}.`)
  }
  const own = text.toLowerCase()
  const aliases = [
    ...new Set(
      (entry.aliases ?? []).map((a) => collapse(a).toLowerCase()).filter((a) => a !== '' && a !== own),
    ),
  ]
  if (aliases.length > LIMITS.maxAliasesPerWord) {
    throw fail(`${where}.aliases has more than ${LIMITS.maxAliasesPerWord} entries.`)
  }
  if (aliases.some((a) => a.length > LIMITS.maxWordLength)) {
    throw fail(`${where}.aliases has an entry longer than ${LIMITS.maxWordLength} characters.`)
  }
  return { text, weight, aliases }
}

/** Applies a parsed write to the current rules; throws TOO_MANY_REPLACEMENTS over the limit. */
export function mergeRules(current: readonly ReplacementRule[], write: RulesWrite): ReplacementRule[] {
  const next = write.mode === 'replace' ? [] : current.map((rule) => ({ ...rule }))
  for (const entry of write.entries) {
    const key = entry.replacement.toLowerCase()
    const byId = entry.id === null ? -1 : next.findIndex((r) => r.id === entry.id)
    const at = byId !== -1 ? byId : next.findIndex((r) => r.replacement.toLowerCase() === key)
    const rule = { id: entry.id ?? randomUUID(), triggers: entry.triggers, replacement: entry.replacement }
    if (at === -1) next.push(rule)
    else next[at] = { ...rule, id: entry.id ?? next[at]!.id }
  }
  if (next.length > LIMITS.maxRules) throw errors.TOO_MANY_REPLACEMENTS(String(next.length))
  assertUniqueIds(next)
  return next
}

function assertUniqueIds(rules: readonly ReplacementRule[]): void {
  const seen = new Set<string>()
  for (const rule of rules) {
    if (seen.has(rule.id)) {
      throw errors.INVALID_REPLACEMENTS(`the id ${rule.id} would name two rules.`)
    }
    seen.add(rule.id)
  }
}

/** Applies a parsed write to the current words; throws TOO_MANY_CUSTOM_WORDS over the limit. */
export function mergeWords(current: readonly CustomWord[], write: WordsWrite): CustomWord[] {
  const next = write.mode === 'replace' ? [] : current.map((word) => ({ ...word }))
  for (const entry of write.entries) {
    const key = entry.text.toLowerCase()
    const at = next.findIndex((w) => w.text.toLowerCase() === key)
    if (at === -1) next.push(entry)
    else next[at] = entry
  }
  if (next.length > LIMITS.maxWords) throw errors.TOO_MANY_CUSTOM_WORDS(String(next.length))
  return next
}
