/**
 * Pure dictionary semantics (docs/api-decisions.md "Dictionary"): normalisation of incoming entries, and the append /
 * replace merge. Validation is atomic: the first bad entry throws, naming its index, before anything is stored.
 */

import { randomUUID } from 'node:crypto'
import { checkPayload, checkStoredText } from '../lib/validate.ts'
import { dictionaryErrors } from './errors.ts'
import {
  type CustomWord,
  type CustomWordEntry,
  CustomWordPatchSchema,
  CustomWordsWriteSchema,
  LIMITS,
  type ReplacementEntry,
  ReplacementPatchSchema,
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
  entries: Array<Omit<CustomWord, 'id'> & { id: string | null }>
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
  const fail = (d: string) => dictionaryErrors.INVALID_REPLACEMENTS(d)
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
  if (raw.length > LIMITS.maxRules) throw dictionaryErrors.TOO_MANY_REPLACEMENTS(String(raw.length))
  return { mode, entries: raw.map((entry, i) => normaliseRule(entry, label(i), fail)) }
}

function normaliseRule(entry: ReplacementEntry, where: string, fail: (d: string) => Error) {
  if (entry.id !== undefined && !UUID.test(entry.id)) throw fail(`${where}.id must be a UUID.`)
  checkStoredText(entry.triggers, `${where}.triggers`, fail)
  checkStoredText(entry.replacement, `${where}.replacement`, fail)
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
  const fail = (d: string) => dictionaryErrors.INVALID_CUSTOM_WORDS(d)
  const object = asObject(body, fail)
  const mode = checkMode(object, fail)
  const payload = checkPayload(CustomWordsWriteSchema, object, fail)
  let raw: CustomWordEntry[]
  let label: (i: number) => string
  if (payload.entries !== undefined) {
    raw = payload.entries
    label = (i) => `entries[${i}]`
  } else if (payload.text !== undefined) {
    raw = [
      {
        text: payload.text,
        weight: payload.weight ?? null,
        aliases: payload.aliases ?? [],
        ...(payload.id ? { id: payload.id } : {}),
      },
    ]
    label = () => 'the entry'
  } else {
    throw fail('expected "entries", or "text".')
  }
  if (raw.length > LIMITS.maxWords) throw dictionaryErrors.TOO_MANY_CUSTOM_WORDS(String(raw.length))
  return { mode, entries: raw.map((entry, i) => normaliseWord(entry, label(i), fail)) }
}

function normaliseWord(entry: CustomWordEntry, where: string, fail: (d: string) => Error) {
  if (entry.id !== undefined && !UUID.test(entry.id)) throw fail(`${where}.id must be a UUID.`)
  checkStoredText(entry.text, `${where}.text`, fail)
  checkStoredText(entry.aliases ?? [], `${where}.aliases`, fail)
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
  return { id: entry.id?.toLowerCase() ?? null, text, weight, aliases }
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
  if (next.length > LIMITS.maxRules) throw dictionaryErrors.TOO_MANY_REPLACEMENTS(String(next.length))
  assertUniqueIds(next)
  return next
}

function assertUniqueIds(rules: readonly ReplacementRule[]): void {
  const seen = new Set<string>()
  for (const rule of rules) {
    if (seen.has(rule.id)) {
      throw dictionaryErrors.INVALID_REPLACEMENTS(`the id ${rule.id} would name two rules.`)
    }
    seen.add(rule.id)
  }
}

/**
 * Applies a parsed write to the current words; throws TOO_MANY_CUSTOM_WORDS over the limit. An entry
 * updates the word with its `id`, else the word with its text (case-insensitive), in place; a word it
 * renames onto another word's text absorbs that word (the text is the list's key).
 */
export function mergeWords(current: readonly CustomWord[], write: WordsWrite): CustomWord[] {
  const next = write.mode === 'replace' ? [] : current.map((word) => ({ ...word }))
  for (const entry of write.entries) {
    const key = entry.text.toLowerCase()
    const byId = entry.id === null ? -1 : next.findIndex((w) => w.id === entry.id)
    const byText = next.findIndex((w) => w.text.toLowerCase() === key)
    const at = byId !== -1 ? byId : byText
    const word = { ...entry, id: entry.id ?? (at === -1 ? randomUUID() : next[at]!.id) }
    if (at === -1) next.push(word)
    else next[at] = word
    if (byId !== -1 && byText !== -1 && byText !== byId) next.splice(byText, 1)
  }
  if (next.length > LIMITS.maxWords) throw dictionaryErrors.TOO_MANY_CUSTOM_WORDS(String(next.length))
  return next
}

/** The rule with this id (ids compare case-insensitively), or REPLACEMENT_NOT_FOUND. */
function indexOfRule(rules: readonly ReplacementRule[], id: string): number {
  const at = rules.findIndex((rule) => rule.id === id.toLowerCase())
  if (at === -1) throw dictionaryErrors.REPLACEMENT_NOT_FOUND(quoteId(id))
  return at
}

function indexOfWord(words: readonly CustomWord[], id: string): number {
  const at = words.findIndex((word) => word.id === id.toLowerCase())
  if (at === -1) throw dictionaryErrors.CUSTOM_WORD_NOT_FOUND(quoteId(id))
  return at
}

/** An id as the 404 message names it (cut: it comes from the URL). */
function quoteId(id: string): string {
  return JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}…` : id)
}

/** The fields a PATCH of a rule changes, checked against the schema (values are normalised on apply). */
export function parseRulePatch(body: unknown): Partial<Omit<ReplacementEntry, 'id'>> {
  const fail = (d: string) => dictionaryErrors.INVALID_REPLACEMENTS(d)
  const payload = checkPayload(ReplacementPatchSchema, asObject(body, fail), fail)
  if (payload.triggers === undefined && payload.replacement === undefined)
    throw fail('expected "triggers" or "replacement".')
  return payload
}

/**
 * PATCH /v1/dictionary/replacements/:id: the rule edited where it stands, validated as a bulk write's entry
 * is. Changing the replacement to one another rule has is refused: a bulk append would merge the two, an
 * edit of one rule must not remove the other.
 */
export function patchRule(
  current: readonly ReplacementRule[],
  id: string,
  patch: Partial<Omit<ReplacementEntry, 'id'>>,
): ReplacementRule[] {
  const at = indexOfRule(current, id)
  const rule = current[at]!
  const fail = (d: string) => dictionaryErrors.INVALID_REPLACEMENTS(d)
  const edited = normaliseRule(
    { triggers: patch.triggers ?? rule.triggers, replacement: patch.replacement ?? rule.replacement },
    'the entry',
    fail,
  )
  const key = edited.replacement.toLowerCase()
  // Only a changed replacement is checked: bulk writes by id may have left two rules with one replacement.
  const other =
    key === rule.replacement.toLowerCase()
      ? undefined
      : current.find((r, i) => i !== at && r.replacement.toLowerCase() === key)
  if (other) throw fail(`the entry.replacement is already the replacement of rule ${other.id}.`)
  const next = current.map((r) => ({ ...r }))
  next[at] = { id: rule.id, triggers: edited.triggers, replacement: edited.replacement }
  return next
}

/** DELETE /v1/dictionary/replacements/:id */
export function deleteRule(current: readonly ReplacementRule[], id: string): ReplacementRule[] {
  const at = indexOfRule(current, id)
  return current.filter((_, i) => i !== at)
}

export function parseWordPatch(body: unknown): Partial<Omit<CustomWordEntry, 'id'>> {
  const fail = (d: string) => dictionaryErrors.INVALID_CUSTOM_WORDS(d)
  const payload = checkPayload(CustomWordPatchSchema, asObject(body, fail), fail)
  if (payload.text === undefined && payload.weight === undefined && payload.aliases === undefined)
    throw fail('expected "text", "weight" or "aliases".')
  return payload
}

/**
 * PATCH /v1/dictionary/custom-words/:id: the word edited where it stands, validated as a bulk write's entry
 * is (`weight: null` resets the weight, `aliases: null` or `[]` clears them). A text another word already has
 * (case-insensitive) is refused.
 */
export function patchWord(
  current: readonly CustomWord[],
  id: string,
  patch: Partial<Omit<CustomWordEntry, 'id'>>,
): CustomWord[] {
  const at = indexOfWord(current, id)
  const word = current[at]!
  const fail = (d: string) => dictionaryErrors.INVALID_CUSTOM_WORDS(d)
  const edited = normaliseWord(
    {
      text: patch.text ?? word.text,
      weight: patch.weight === undefined ? word.weight : patch.weight,
      aliases: patch.aliases === undefined ? word.aliases : patch.aliases,
    },
    'the entry',
    fail,
  )
  const key = edited.text.toLowerCase()
  const other = current.find((w, i) => i !== at && w.text.toLowerCase() === key)
  if (other) throw fail(`the entry.text is already the text of custom word ${other.id}.`)
  const next = current.map((w) => ({ ...w }))
  next[at] = { ...edited, id: word.id }
  return next
}

/** DELETE /v1/dictionary/custom-words/:id */
export function deleteWord(current: readonly CustomWord[], id: string): CustomWord[] {
  const at = indexOfWord(current, id)
  return current.filter((_, i) => i !== at)
}
