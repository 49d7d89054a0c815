/**
 * Replay: a suggestion proves itself on the user's own recordings before it changes anything. The kept
 * recordings are transcribed again on the engine that made them, without and with the suggestion: the
 * entries it was learned from first, then a bounded sample of other recordings of that engine (newest
 * first) to catch what it would break. Each is scored against the text the user kept (the correction, else
 * the final text). Requests wait at low priority behind dictation, and the replay stops at its time bound.
 */
import { compileReplacements } from '../dictionary/replace.ts'
import type { HistoryEntry } from '../history/schemas.ts'
import type { HistoryService } from '../history/service.ts'
import type { TranscriptionService } from '../transcription/service.ts'
import { wordEdits, wordErrorRate, words } from './alignment.ts'
import type { Replay, Suggestion } from './schemas.ts'

export interface ReplayBounds {
  /** Other recordings checked beside the suggestion's own. */
  sample: number
  maxSeconds: number
}

interface ReplayDeps {
  history: HistoryService
  transcription: TranscriptionService
}

type Recording = Replay['recordings'][number]

/** The recordings a replay checks: the evidence first, then the sample; null when none has audio. */
export function replayEntries(
  suggestion: Suggestion,
  history: HistoryService,
  sample: number,
): HistoryEntry[] {
  const own: HistoryEntry[] = []
  for (const id of suggestion.evidence) {
    try {
      const entry = history.get(id)
      if (entry.hasAudio) own.push(entry)
    } catch {
      // The entry was deleted since: it is no evidence any more.
    }
  }
  const others = history
    .recorded(sample + own.length, suggestion.engine)
    .filter((entry) => !suggestion.evidence.includes(entry.id))
    .slice(0, sample)
  return [...own, ...others]
}

export async function replaySuggestion(
  suggestion: Suggestion,
  deps: ReplayDeps,
  bounds: ReplayBounds,
  signal?: AbortSignal,
): Promise<Replay> {
  const started = performance.now()
  const entries = replayEntries(suggestion, deps.history, bounds.sample)
  const engine = suggestion.engine ?? entries[0]?.engine ?? ''
  const recordings: Recording[] = []
  let complete = true
  for (const entry of entries) {
    if ((performance.now() - started) / 1000 >= bounds.maxSeconds) {
      complete = false
      break
    }
    recordings.push(await replayOne(entry, suggestion, deps, signal))
  }
  const before = recordings.map((r) => ({ reference: r.reference, hypothesis: r.before }))
  const after = recordings.map((r) => ({ reference: r.reference, hypothesis: r.after }))
  return {
    checked: recordings.length,
    fixed: recordings.filter((r) => r.verdict === 'fixed').length,
    broken: recordings.filter((r) => r.verdict === 'broken').length,
    werBefore: round(wordErrorRate(before)),
    werAfter: round(wordErrorRate(after)),
    engine,
    seconds: round((performance.now() - started) / 1000),
    complete,
    at: new Date().toISOString(),
    recordings,
  }
}

async function replayOne(
  entry: HistoryEntry,
  suggestion: Suggestion,
  deps: ReplayDeps,
  signal: AbortSignal | undefined,
): Promise<Recording> {
  const source = { kind: 'bytes' as const, data: deps.history.audio(entry.id), filename: 'recording.flac' }
  const options = {
    ...(entry.engine ? { engineId: entry.engine } : {}),
    priority: 'low' as const,
    ...(signal ? { signal } : {}),
  }
  const before = (await deps.transcription.transcribe(source, options)).text
  let after: string
  if (suggestion.kind === 'customWord') {
    const word = suggestion.entry as { text: string; weight: number | null; aliases: string[] }
    after = (await deps.transcription.transcribe(source, { ...options, customWords: [word] })).text
  } else {
    const rule = suggestion.entry as { triggers: string[]; replacement: string }
    after = compileReplacements([{ id: suggestion.id, ...rule }]).apply(before)
  }
  const reference = entry.correctedText ?? entry.finalText
  const ref = words(reference)
  const editsBefore = wordEdits(ref, words(before))
  const editsAfter = wordEdits(ref, words(after))
  const verdict = editsAfter < editsBefore ? 'fixed' : editsAfter > editsBefore ? 'broken' : 'same'
  return { entryId: entry.id, reference, before, after, verdict }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000
}
