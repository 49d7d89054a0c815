/**
 * The pocketsphinx engine against `pocketsphinx_continuous` on the shared clips, side by side in one run:
 * real-time factor (processing time / audio duration; lower is faster) and word error rate. The engine runs
 * as dictum runs it (createEngineRunner, isolation 'process', model already loaded), so its time includes
 * the IPC hop; the command line pays a model load per file, as a script calling it would. Rounds alternate
 * between the two; RTFs are medians of rounds.
 */
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { Value } from '@sinclair/typebox/value'
import pocketsphinx from '../engines/pocketsphinx/index.ts'
import { createEngineRunner } from '../kernel/engine-runner/index.ts'
import { readClip, referenceClips, runCommandLine } from '../test/engines/pocketsphinx/clips.ts'
import { corpusWordErrorRate } from '../test/helpers/wer.ts'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const SAMPLE_RATE = 16000

export async function benchPocketsphinx(rounds = 3): Promise<Record<string, number | string>> {
  const clips = await Promise.all(
    referenceClips().map(async (clip) => ({ ...clip, samples: await readClip(clip.path) })),
  )
  const audioSeconds = clips.reduce((sum, clip) => sum + clip.samples.length / SAMPLE_RATE, 0)
  const runner = createEngineRunner({
    engineId: 'pocketsphinx',
    moduleSource: path.join(repoRoot, 'engines/pocketsphinx/index.ts'),
    isolation: 'process',
    context: {
      options: Value.Default(pocketsphinx.optionsSchema, {}),
      dataDir: repoRoot,
      modelsDir: repoRoot,
    },
    concurrency: 1,
    requestTimeoutMs: 300_000,
    loadTimeoutMs: 120_000,
    logger: quiet,
  })
  try {
    const loadStart = performance.now()
    await runner.load()
    const loadMs = performance.now() - loadStart
    const engineTimes: number[] = []
    const cliTimes: number[] = []
    let engineTexts: string[] = []
    let cliTexts: string[] = []
    for (let round = 0; round < rounds; round++) {
      const engine = await timed(() =>
        sequential(
          clips,
          async (clip) => (await runner.transcribe({ samples: clip.samples, customWords: [] })).text,
        ),
      )
      const cli = await timed(() => sequential(clips, (clip) => runCommandLine(clip.path)))
      engineTimes.push(engine.ms)
      cliTimes.push(cli.ms)
      engineTexts = engine.value
      cliTexts = cli.value
    }
    const engineRtf = median(engineTimes) / 1000 / audioSeconds
    const cliRtf = median(cliTimes) / 1000 / audioSeconds
    const wer = (texts: string[]) =>
      corpusWordErrorRate(clips.map((clip, i) => ({ reference: clip.reference, hypothesis: texts[i] ?? '' })))
    return {
      clips: clips.length,
      audioSeconds: round3(audioSeconds),
      rounds,
      engineLoadMs: Math.round(loadMs),
      engineRtf: round3(engineRtf),
      commandLineRtf: round3(cliRtf),
      commandLineOverEngineTime: round3(cliRtf / engineRtf),
      engineWer: round3(wer(engineTexts)),
      commandLineWer: round3(wer(cliTexts)),
    }
  } finally {
    await runner.close()
  }
}

async function sequential<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (const item of items) out.push(await work(item))
  return out
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now()
  const value = await work()
  return { ms: performance.now() - start, value }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000
}
