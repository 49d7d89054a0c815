/**
 * pocketsphinx as dictum runs it (the engine runner: the engine in its own process), and the reference corpus
 * through it with the default options, once per test process: the engine runner's test compares that pass
 * with the command line and the custom-words test takes it as its baseline (a pass is ~14 CPU s, and both
 * test files run in one group's process).
 */
import path from 'node:path'
import type { Test } from 'tap'
import type { PocketsphinxOptions } from '../../../engines/pocketsphinx/options.ts'
import type { EngineTranscribeResult } from '../../../kernel/contracts/engine.ts'
import { createEngineRunner, type EngineRunner } from '../../../kernel/engine-runner/index.ts'
import { repoRoot } from '../../helpers/wav.ts'
import { type Clip, readClip, referenceClips } from './clips.ts'
import { options } from './engine-context.ts'

/** The engine as dictum runs it (its own process), with these options; closed when the test ends. */
export function startRunner(t: Test, engineOptions: PocketsphinxOptions): EngineRunner {
  const runner = createEngineRunner({
    engineId: 'pocketsphinx',
    moduleSource: path.join(repoRoot, 'engines/pocketsphinx/index.ts'),
    isolation: 'process',
    context: { options: engineOptions, dataDir: '/nonexistent', modelsDir: '/nonexistent' },
    concurrency: 1,
    requestTimeoutMs: 120_000,
    loadTimeoutMs: 60_000,
    logger: { debug() {}, info() {}, warn: console.warn, error: console.error },
  })
  t.teardown(() => runner.close())
  return runner
}

/** A reference clip with its audio and what the engine runner gave for it. */
export interface CorpusResult {
  clip: Clip
  samples: Float32Array
  result: EngineTranscribeResult
}

let corpusPass: Promise<CorpusResult[]> | null = null

/**
 * Every reference clip (refs.tsv's order) through the engine runner with the default options, made once per
 * test process by a runner of the first test that asks (closed when that test ends; tap ends a root test
 * that is given a teardown as soon as it is idle, so the pass cannot live on the root).
 */
export function defaultCorpusPass(t: Test): Promise<CorpusResult[]> {
  corpusPass ??= (async () => {
    const runner = startRunner(t, options)
    await runner.load()
    const results: CorpusResult[] = []
    for (const clip of referenceClips()) {
      const samples = await readClip(clip.path)
      results.push({ clip, samples, result: await runner.transcribe({ samples, customWords: [] }) })
    }
    return results
  })()
  return corpusPass
}
