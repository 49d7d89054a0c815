/**
 * The dictionary's custom words reach the recognizer of a custom-words engine as hotwords, per request
 * (a dictionary change applies to the next request without reloading the model), and never reach engines
 * that do not use them. Runs the real sherpa-onnx engine on the generated NeMo TDT fixture model, isolated.
 */
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import type { EngineTranscribeRequest, EngineTranscribeResult } from '../../../kernel/contracts/engine.ts'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import type { RunnerFactory } from '../../../kernel/registry.ts'
import { fixtureModels, fixtureModelsDir } from '../../engines/sherpa-onnx/fixtures.ts'
import { build, injectJson, tempDir } from '../../helpers/build.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'

interface Seen {
  engine: string
  request: EngineTranscribeRequest
  result: EngineTranscribeResult
}

/** The real runner, recording what each engine was asked and what it answered. */
function recordingFactory(seen: Seen[]): RunnerFactory {
  return (options) => {
    const runner = createEngineRunner(options)
    return {
      load: () => runner.load(),
      close: () => runner.close(),
      setTimeouts: (timeouts) => runner.setTimeouts(timeouts),
      openStream: (streamOptions, signal) => runner.openStream(streamOptions, signal),
      get state() {
        return runner.state
      },
      get lastError() {
        return runner.lastError
      },
      async transcribe(request: EngineTranscribeRequest, signal?: AbortSignal) {
        const result = await runner.transcribe(request, signal)
        seen.push({ engine: options.engineId, request, result })
        return result
      },
    }
  }
}

const JFK = path.join(audioFixturesDir, 'jfk.wav')

t.test('custom words and aliases become hotwords of a transducer, per request', async (t) => {
  const fixtures = await fixtureModels()
  if ('skip' in fixtures) {
    t.comment(`skipped: ${fixtures.skip}`)
    return t.pass('fixture models unavailable', { skip: fixtures.skip })
  }
  const dataDir = tempDir(t)
  mkdirSync(path.join(dataDir, 'models'))
  await fixtureModelsDir(fixtures.dir, path.join(dataDir, 'models'))
  const seen: Seen[] = []
  const app = await build(
    t,
    {
      dataDir,
      speech: {
        engine: 'sherpa-onnx',
        engines: { 'sherpa-onnx': { model: 'parakeet-tdt-0.6b-v2', numThreads: 1 } },
      },
    },
    { runnerFactory: recordingFactory(seen) },
  )
  const engines = (await injectJson(app, 'GET', '/v1/engines')).body
  t.match(
    engines.items.find((e: { id: string }) => e.id === 'sherpa-onnx'),
    { active: true, capabilities: { customWords: true } },
  )

  await injectJson(app, 'POST', '/v1/dictionary/custom-words', {
    entries: [
      { text: 'Kubernetes', weight: 100, aliases: ['cube er netes'] },
      { text: 'Grafana', weight: null },
    ],
  })
  const first = await injectJson(app, 'POST', '/v1/transcribe', { path: JFK })
  t.equal(first.status, 200)
  t.match(first.body.provider, /Parakeet TDT 0\.6B v2 \(English\)/, 'provider is the model’s human name')
  const one = seen.at(-1)!
  t.same(one.request.customWords, [
    { text: 'Kubernetes', weight: 100, aliases: ['cube er netes'] },
    { text: 'Grafana', weight: null, aliases: [] },
  ])
  const hotwords = String((one.result.debug as { hotwords?: unknown })?.hotwords ?? '')
  t.match(hotwords, /KUBERNETES :4(\.0+)?\b/i, 'weight 100 maps to the top score')
  t.match(hotwords, /CUBE ER NETES/i, 'aliases are hotwords too')
  t.match(hotwords, /GRAFANA :1\.50*\b/i, 'null weight: the default score')

  await injectJson(app, 'POST', '/v1/dictionary/custom-words', {
    mode: 'replace',
    entries: [{ text: 'Prometheus' }],
  })
  await injectJson(app, 'POST', '/v1/transcribe', { path: JFK })
  const two = String((seen.at(-1)!.result.debug as { hotwords?: unknown })?.hotwords ?? '')
  t.match(two, /PROMETHEUS/i, 'the next request uses the new dictionary')
  t.notMatch(two, /KUBERNETES/i)
  t.equal(app.dictum.engines.ids().includes('sherpa-onnx'), true)
})

t.test('engines without the capability get no custom words', async (t) => {
  const seen: Seen[] = []
  const app = await build(t, {}, { runnerFactory: recordingFactory(seen) })
  await injectJson(app, 'POST', '/v1/dictionary/custom-words', { text: 'Kubernetes' })
  await injectJson(app, 'POST', '/v1/transcribe', { path: JFK })
  t.equal(seen.length, 1)
  t.same(seen[0]!.request.customWords, [], 'fixture-echo declares customWords: false')
})
