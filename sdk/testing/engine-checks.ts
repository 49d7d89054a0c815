/**
 * What the engine suite checks of a definition's capabilities and of each transcription result. Pure
 * functions returning the problems found, so that one failed check reads as one precise message and a long
 * result does not make thousands of assertions.
 */
import type {
  EngineCapabilities,
  EngineTranscribeResult,
  TranscriptSegment,
  TranscriptWord,
} from '../../kernel/contracts/engine.ts'

/** Timings may reach this far past the end of the audio (engines count whole frames). */
const SLACK_SECONDS = 0.05

/** What is wrong with the capabilities a definition declares (empty: nothing). */
export function capabilityProblems(capabilities: EngineCapabilities): string[] {
  const problems: string[] = []
  for (const key of ['customWords', 'wordTimestamps', 'segmentTimestamps'] as const) {
    if (typeof capabilities[key] !== 'boolean') problems.push(`capabilities.${key} is not a boolean`)
  }
  if (capabilities.streaming !== undefined && typeof capabilities.streaming !== 'boolean')
    problems.push('capabilities.streaming is neither absent nor a boolean')
  const { languages, maxAudioSeconds: max } = capabilities
  if (!Array.isArray(languages) || languages.length === 0) problems.push('capabilities.languages is empty')
  else if (!languages.every((l) => l === '*' || /^[a-z]{2,3}(-[A-Za-z0-9]+)*$/.test(l)))
    problems.push(`capabilities.languages holds something else than codes or * (${languages.join(', ')})`)
  if (!(max === null || (typeof max === 'number' && Number.isFinite(max) && max > 0)))
    problems.push(`capabilities.maxAudioSeconds is neither null nor positive (${max})`)
  return problems
}

/**
 * What is wrong with the result of `seconds` of audio, given what the engine declares: the shape every
 * result has, and the words and segments its capabilities promise (and only those).
 */
export function resultProblems(
  result: EngineTranscribeResult,
  seconds: number,
  capabilities: EngineCapabilities,
): string[] {
  if (typeof result?.text !== 'string') return ['text is not a string']
  const problems: string[] = []
  const { confidence } = result
  if (!(confidence === null || (typeof confidence === 'number' && confidence >= 0 && confidence <= 1)))
    problems.push(`confidence is neither null nor 0..1 (${confidence})`)
  try {
    structuredClone(result)
  } catch (err) {
    problems.push(`the result cannot cross a process boundary (${(err as Error).message})`)
  }
  problems.push(
    ...timedProblems('words', result.words, capabilities.wordTimestamps, result.text, seconds),
    ...timedProblems('segments', result.segments, capabilities.segmentTimestamps, result.text, seconds),
  )
  for (const word of Array.isArray(result.words) ? result.words : []) {
    if (word?.confidence !== undefined && !(word.confidence >= 0 && word.confidence <= 1)) {
      problems.push(`word confidence of "${word.word}" is not 0..1 (${word.confidence})`)
      break
    }
  }
  return problems
}

/**
 * What is wrong with the partials a stream's `accept` returned (the non-null ones): each is an object whose
 * `text` is a string (the whole hypothesis), and crosses a process boundary.
 */
export function partialProblems(partials: readonly unknown[]): string[] {
  const bad = partials.findIndex(
    (partial) => typeof partial !== 'object' || typeof (partial as { text?: unknown })?.text !== 'string',
  )
  if (bad >= 0) return [`partial ${bad} is not { text: string } (${String(JSON.stringify(partials[bad]))})`]
  try {
    structuredClone(partials)
  } catch (err) {
    return [`a partial cannot cross a process boundary (${(err as Error).message})`]
  }
  return []
}

/**
 * Words or segments: present when declared and the text is not empty, absent when not declared (users read
 * the capabilities in `GET /v1/engines`), each timed within the audio, in order, and together spelling the
 * text (subtitles are written from segments, the transcript from the text: they must say the same).
 */
function timedProblems(
  kind: 'words' | 'segments',
  list: TranscriptWord[] | TranscriptSegment[] | undefined,
  declared: boolean,
  text: string,
  seconds: number,
): string[] {
  const capability = kind === 'words' ? 'wordTimestamps' : 'segmentTimestamps'
  if (list !== undefined && !Array.isArray(list)) return [`${kind} is not an array`]
  const items: (TranscriptWord | TranscriptSegment)[] = list ?? []
  if (!declared) {
    return items.length === 0
      ? []
      : [`the result has ${items.length} ${kind} but capabilities.${capability} is false (declare it)`]
  }
  if (items.length === 0)
    return text.trim() === ''
      ? []
      : [`capabilities.${capability} is true but ${quote(text)} comes with no ${kind}`]
  const labels = items.map((item) => ('word' in item ? item.word : item.text))
  const unlabelled = labels.findIndex((label) => typeof label !== 'string')
  if (unlabelled >= 0) return [`${kind}[${unlabelled}] has no text`]
  let previousStart = 0
  for (const [i, item] of items.entries()) {
    const { start, end } = item
    if (!(Number.isFinite(start) && Number.isFinite(end) && start >= 0 && start <= end))
      return [`${kind}[${i}] "${labels[i]}" has no valid timing (${start}..${end})`]
    if (end > seconds + SLACK_SECONDS)
      return [`${kind}[${i}] "${labels[i]}" ends after the audio (${start}..${end} of ${seconds} s)`]
    if (start < previousStart)
      return [`${kind}[${i}] "${labels[i]}" starts before the one before it (${start} < ${previousStart})`]
    previousStart = start
  }
  if (spelling(labels.join(' ')) !== spelling(text))
    return [`the ${kind} do not spell the text: ${quote(labels.join(' '))} vs ${quote(text)}`]
  return []
}

/**
 * Letters and digits only, lower case: words and segments spell the text when these agree, whatever the
 * engine does with spaces, case and punctuation (Whisper servers drop the punctuation from their words).
 */
function spelling(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '')
}

/** Quoted, and cut short: a long transcript must not drown the message. */
function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text)
}
