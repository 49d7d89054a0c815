import path from 'node:path'
import type { EngineDefinition, EnginePartial } from '../../../kernel/contracts/engine.ts'
import type { EngineRunnerOptions } from '../../../kernel/engine-runner/index.ts'
import type { RunnerStream } from '../../../kernel/engine-runner/types.ts'
import { streamingEngine, streamingInlineEngine } from '../../fixtures/plugins/streaming-engine.ts'
import { memoryLogger } from './runner-helpers.ts'

const fixtureFile = path.resolve(import.meta.dirname, '../../fixtures/plugins/streaming-engine.ts')

/** The fixture streaming engine's options, defaults filled in. */
export interface StreamingOptions {
  msPerWord: number
  streaming: boolean
  throwAfterChunks: number | null
  crashAfterChunks: number | null
  crashHow: 'abort' | 'exit'
  leakAfterChunks: number | null
  acceptDelayMs: number
  finishDelayMs: number
  busyMsPerSecond: number
}

export const MS_PER_WORD = 100

/** Runner options for the fixture streaming engine, in a host process or in this one. */
export function streamingRunner(
  isolation: 'process' | 'none',
  engineOptions: Partial<StreamingOptions> = {},
  overrides: Partial<EngineRunnerOptions> = {},
): EngineRunnerOptions {
  const definition = (isolation === 'process'
    ? streamingEngine
    : streamingInlineEngine) as unknown as EngineDefinition
  const options: StreamingOptions = {
    msPerWord: MS_PER_WORD,
    streaming: true,
    throwAfterChunks: null,
    crashAfterChunks: null,
    crashHow: 'abort',
    leakAfterChunks: null,
    acceptDelayMs: 0,
    finishDelayMs: 0,
    busyMsPerSecond: 0,
    ...engineOptions,
  }
  return {
    engineId: definition.id,
    moduleSource: fixtureFile,
    isolation,
    definition,
    context: { options, dataDir: '/nonexistent', modelsDir: '/nonexistent' },
    concurrency: 1,
    requestTimeoutMs: 60_000,
    loadTimeoutMs: 60_000,
    logger: memoryLogger(),
    ...overrides,
  }
}

/** `ms` of audio: loud (the fixture hears words in it) or silent. */
export function audio(ms: number, loud = true): Float32Array {
  return new Float32Array((ms * 16000) / 1000).fill(loud ? 0.5 : 0)
}

/** Collects a stream's partial texts. */
export function partialsOf(stream: RunnerStream): string[] {
  const texts: string[] = []
  stream.onPartial((partial: EnginePartial) => texts.push(partial.text))
  return texts
}

/** Settles with what `failed` rejected with, or 'pending' when it has not rejected by the next macrotask. */
export async function failureOf(stream: RunnerStream, waitMs = 0): Promise<unknown> {
  const pending = Symbol('pending')
  const result = await Promise.race([
    stream.failed.catch((error: unknown) => error),
    new Promise((resolve) => setTimeout(() => resolve(pending), waitMs)),
  ])
  return result === pending ? 'pending' : result
}
