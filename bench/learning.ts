/**
 * Section `learning`: does learning from corrections help on recordings it was not taught on? Leave-one-out
 * over the repo's clips with reference transcripts (test/fixtures/audio/refs.tsv), on pocketsphinx in its
 * engine host. For each clip (a fold), in a fresh data dir: dictate it (its recording kept), correct it with
 * its reference text, replay each suggestion the correction made, accept those replay approves (fixes at
 * least one recording, breaks none: what `learning.autoAccept` does), then transcribe the *other* clips with
 * the dictionary as accepting left it. Their word error rate before (empty dictionary, one baseline pass:
 * pocketsphinx gives the same text for the same audio) and after, averaged over the folds; a fold that
 * accepted nothing has an unchanged dictionary, so its "after" is its "before" without transcribing again.
 * The fold's history holds its own clip only: replay checks that recording (there is no other kept
 * recording to break), and the other clips measure what the accepted entries do elsewhere.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { resolveConfig } from '../config/load.ts'
import { wordErrorRate } from '../learning/alignment.ts'
import type { Suggestion } from '../learning/schemas.ts'
import { buildApp, type DictumApp } from '../server/app.ts'
import { ConfigSchema } from '../server/config-schema.ts'
import { type ReferenceClip, referenceTranscripts } from '../test/helpers/fixtures.ts'
import { round } from './lib/load.ts'

interface Fold {
  werBefore: number
  werAfter: number
  made: Suggestion[]
  accepted: Suggestion[]
  replaySeconds: number
  replayedRecordings: number
}

/** A fresh dictum on pocketsphinx (one engine process) in its own data dir, removed by `close`. */
async function freshApp(): Promise<{ app: DictumApp; close: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dictum-bench-learning-'))
  const app = await buildApp(
    resolveConfig(ConfigSchema, {
      dataDir,
      speech: { engine: 'pocketsphinx', concurrency: 1 },
      log: { level: 'warn' },
    }),
    { logger: false },
  )
  await app.ready()
  return {
    app,
    close: async () => {
      await app.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

async function transcribeAll(app: DictumApp, clips: readonly ReferenceClip[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>()
  for (const clip of clips) {
    const result = await app.dictum.transcription.transcribe({ kind: 'file', path: clip.path })
    texts.set(clip.file, result.text)
  }
  return texts
}

function werOn(clips: readonly ReferenceClip[], texts: Map<string, string>): number {
  return wordErrorRate(clips.map((c) => ({ reference: c.reference, hypothesis: texts.get(c.file) ?? '' })))
}

async function runFold(
  clip: ReferenceClip,
  others: readonly ReferenceClip[],
  baseline: Map<string, string>,
): Promise<Fold> {
  const { app, close } = await freshApp()
  try {
    const { dictation, learning } = app.dictum
    const dictated = await dictation.dictate({ kind: 'file', path: clip.path })
    const { suggestions } = await learning.correct(dictated.entry.id, { text: clip.reference })
    const accepted: Suggestion[] = []
    let replaySeconds = 0
    let replayedRecordings = 0
    for (const suggestion of suggestions) {
      const { replay } = await learning.replay(suggestion.id)
      if (!replay) continue
      replaySeconds += replay.seconds
      replayedRecordings += replay.checked
      if (replay.fixed >= 1 && replay.broken === 0) accepted.push(await learning.accept(suggestion.id))
    }
    const werBefore = werOn(others, baseline)
    const werAfter = accepted.length === 0 ? werBefore : werOn(others, await transcribeAll(app, others))
    return { werBefore, werAfter, made: suggestions, accepted, replaySeconds, replayedRecordings }
  } finally {
    await close()
  }
}

export async function benchLearning(): Promise<Record<string, number | string>> {
  const clips = referenceTranscripts()
  const base = await freshApp()
  let baseline: Map<string, string>
  try {
    baseline = await transcribeAll(base.app, clips)
  } finally {
    await base.close()
  }
  const folds: Fold[] = []
  const learned: string[] = []
  for (const clip of clips) {
    const fold = await runFold(
      clip,
      clips.filter((c) => c !== clip),
      baseline,
    )
    folds.push(fold)
    for (const s of fold.accepted) learned.push(`${clip.file}: ${describe(s)}`)
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
  const replayed = folds.reduce((n, f) => n + f.replayedRecordings, 0)
  const replaySeconds = folds.reduce((n, f) => n + f.replaySeconds, 0)
  return {
    folds: folds.length,
    'WER of all clips, no dictionary': round(werOn(clips, baseline)),
    'mean WER of the other clips, before': round(mean(folds.map((f) => f.werBefore))),
    'mean WER of the other clips, after accepting': round(mean(folds.map((f) => f.werAfter))),
    'folds where the others got better / worse': `${folds.filter((f) => f.werAfter < f.werBefore).length} / ${folds.filter((f) => f.werAfter > f.werBefore).length}`,
    'suggestions made': folds.reduce((n, f) => n + f.made.length, 0),
    'suggestions accepted (replay: fixes >= 1, breaks 0)': folds.reduce((n, f) => n + f.accepted.length, 0),
    'replay seconds per recording (without + with the suggestion)':
      replayed === 0 ? 'none replayed' : round(replaySeconds / replayed),
    accepted: learned.join('; ') || 'none',
  }
}

function describe(s: Suggestion): string {
  if (s.kind === 'customWord') return `custom word "${(s.entry as { text: string }).text}"`
  const rule = s.entry as { triggers: string[]; replacement: string }
  return `"${rule.triggers.join(', ')}" → "${rule.replacement}"`
}
