/**
 * The fixture NeMo TDT transducer through the whole HTTP path against sherpa-onnx-node called directly, rounds
 * interleaved, both from the same WAV file to text:
 * - HTTP: read jfk.wav, POST it to /v1/transcribe of a dictum in its own process (as users run it: decode,
 *   VAD speech check, engine in its host process, 20 custom words as hotwords, replacements), read the JSON.
 *   The client is node:http with keep-alive (curl-like; `fetch` adds ~1 ms of its own per request).
 * - direct: `readWave(jfk.wav)`, `createStream(hotwords)` with the hotwords dictum passes for those 20 words,
 *   `acceptWaveform`, `decodeAsync`, as the sherpa-onnx examples do.
 * The fixture decodes 11 s in ~22 ms, so dictum's fixed cost per request (HTTP, decode, hand-over to the
 * engine process: a few ms) weighs far more here than with real models, which take seconds.
 */
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Value } from '@sinclair/typebox/value'
import { planHotwords } from '../engines/sherpa-onnx/hotwords.ts'
import engine from '../engines/sherpa-onnx/index.ts'
import { resolveModel } from '../engines/sherpa-onnx/model-spec.ts'
import { loadSherpaOnnx } from '../engines/sherpa-onnx/native.ts'
import type { SherpaOnnxOptions } from '../engines/sherpa-onnx/options.ts'
import { recognizerConfig } from '../engines/sherpa-onnx/recognizer-config.ts'
import { deriveBpeVocab, readTokens } from '../engines/sherpa-onnx/tokens.ts'
import { audioFixturesDir, fixtureModels, fixtureModelsDir } from '../test/engines/sherpa-onnx/fixtures.ts'
import { startChildServer } from './lib/child-server.ts'
import { BENCH_CUSTOM_WORDS } from './lib/custom-words.ts'
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
  const tokens = await readTokens(path.join(spec.dir, 'tokens.txt'))
  await writeFile(bpe, deriveBpeVocab(tokens))
  const sherpa = loadSherpaOnnx()
  const direct = await sherpa.OfflineRecognizer.createAsync(
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
  const file = path.join(audioFixturesDir, 'jfk.wav')
  const hotwords = planHotwords(BENCH_CUSTOM_WORDS, tokens, options.hotwordsScore).lines.join('/')
  const agent = new http.Agent({ keepAlive: true })
  const viaHttp = () => postAudio(agent, server.port, readFileSync(file))
  const viaDirect = async () => {
    const wave = sherpa.readWave(file)
    const stream = direct.createStream(hotwords)
    stream.acceptWaveform(wave)
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
    agent.destroy()
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
}

function postAudio(agent: http.Agent, port: number, body: Buffer): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/transcribe',
        agent,
        headers: { 'content-type': 'audio/wav', 'content-length': body.length },
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('error', reject)
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          if (response.statusCode !== 200)
            reject(new Error(`transcribe answered ${response.statusCode}: ${text}`))
          else resolve(JSON.parse(text))
        })
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}
