/**
 * The fixture NeMo TDT transducer through the whole HTTP path (POST /v1/transcribe to a dictum in its own
 * process: decode, VAD speech check, isolated engine, replacements) against sherpa-onnx-node called directly
 * on the same samples, rounds interleaved. The fixture decodes 11 s in ~22 ms, so dictum's fixed cost per
 * request (HTTP upload, decode, VAD check, IPC: several ms) weighs far more here than with real models.
 */
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Value } from '@sinclair/typebox/value'
import engine from '../engines/sherpa-onnx/index.ts'
import { resolveModel } from '../engines/sherpa-onnx/model-spec.ts'
import { loadSherpaOnnx } from '../engines/sherpa-onnx/native.ts'
import type { SherpaOnnxOptions } from '../engines/sherpa-onnx/options.ts'
import { recognizerConfig } from '../engines/sherpa-onnx/recognizer-config.ts'
import { deriveBpeVocab, readTokens } from '../engines/sherpa-onnx/tokens.ts'
import {
  fixtureModels,
  fixtureModelsDir,
  readWav,
  sharedAudio,
} from '../test/engines/sherpa-onnx/fixtures.ts'
import { startChildServer } from './lib/child-server.ts'
import { median, round } from './lib/load.ts'

export async function benchSherpaHttp(rounds = 21): Promise<Record<string, number | string>> {
  const fixtures = await fixtureModels()
  if ('skip' in fixtures) return { 'fixture transducer over HTTP': `skipped: ${fixtures.skip}` }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'dictum-bench-sherpa-'))
  const modelsDir = path.join(dataDir, 'models')
  await mkdir(modelsDir)
  await fixtureModelsDir(fixtures.dir, modelsDir)
  const raw = { model: 'parakeet-tdt-0.6b-v2', numThreads: 1 }
  const options = Value.Default(engine.optionsSchema, structuredClone(raw)) as SherpaOnnxOptions
  const spec = await resolveModel(options, modelsDir)
  const bpe = path.join(dataDir, 'bpe.vocab')
  await writeFile(bpe, deriveBpeVocab(await readTokens(path.join(spec.dir, 'tokens.txt'))))
  const direct = await loadSherpaOnnx().OfflineRecognizer.createAsync(
    recognizerConfig({ spec, options, bpeVocab: bpe, language: '' }),
  )
  // dictum runs in its own process, as users run it, so the HTTP client here does not share its thread.
  const server = await startChildServer('dictum', {
    DICTUM_BENCH_CONFIG: JSON.stringify({
      dataDir,
      plugins: [],
      speech: { engine: 'sherpa-onnx', engines: { 'sherpa-onnx': raw } },
    }),
  })
  const url = `http://127.0.0.1:${server.port}/v1/transcribe`
  const file = path.join(sharedAudio, 'jfk.wav')
  const body = readFileSync(file)
  const samples = await readWav(file)
  const viaHttp = async () => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'audio/wav' }, body })
    if (res.status !== 200) throw new Error(`transcribe answered ${res.status}: ${await res.text()}`)
    await res.json()
  }
  const viaDirect = async () => {
    const stream = direct.createStream()
    stream.acceptWaveform({ sampleRate: 16000, samples })
    await direct.decodeAsync(stream)
  }
  try {
    for (let i = 0; i < 3; i++) await Promise.all([viaHttp(), viaDirect()])
    const times = { http: [] as number[], direct: [] as number[] }
    for (let i = 0; i < rounds; i++) {
      let start = performance.now()
      await viaHttp()
      times.http.push(performance.now() - start)
      start = performance.now()
      await viaDirect()
      times.direct.push(performance.now() - start)
    }
    return {
      'fixture transducer jfk.wav through HTTP ms (median)': round(median(times.http), 2),
      'fixture transducer jfk.wav sherpa-onnx direct ms (median)': round(median(times.direct), 2),
      'fixture HTTP / direct (target <= 1.10)': round(median(times.http) / median(times.direct), 3),
    }
  } finally {
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
}
