import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import pocketsphinx from '../../../engines/pocketsphinx/index.ts'
import {
  liveSearchArguments,
  PocketsphinxOptionsSchema,
  resolveModelPaths,
  searchArguments,
} from '../../../engines/pocketsphinx/options.ts'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import { options as defaults, quiet as logger } from './engine-context.ts'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const probe = (options: Record<string, unknown>, modelsDir = '/nonexistent') =>
  pocketsphinx.probe?.({ options: { ...defaults, ...options }, dataDir: '/nonexistent', modelsDir, logger })

t.test('model paths: defaults, relative paths, overrides', async (t) => {
  t.same(resolveModelPaths(defaults, '/m'), {
    hmm: '/usr/share/pocketsphinx/model/en-us/en-us',
    lm: '/usr/share/pocketsphinx/model/en-us/en-us.lm.bin',
    dict: '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict',
  })
  t.same(resolveModelPaths({ ...defaults, modelDir: 'fr', lm: 'fr.lm.bin', dict: '/d/fr.dict' }, '/m'), {
    hmm: '/m/fr/en-us',
    lm: '/m/fr/fr.lm.bin',
    dict: '/d/fr.dict',
  })
})

const installed = (await probe({}))?.available === true
const skip = installed ? false : 'pocketsphinx is not installed on this machine'

t.test(
  "search settings: default and full search as pocketsphinx arguments, and the live pass's",
  async (t) => {
    t.same(searchArguments(defaults), [
      '-fwdflat',
      'no',
      '-ds',
      '2',
      '-maxhmmpf',
      '30000',
      '-cmn',
      'batch',
      '-remove_noise',
      'no',
      '-remove_silence',
      'no',
    ])
    t.same(
      searchArguments({
        fwdflat: true,
        frameDownsample: 1,
        maxHmmsPerFrame: 30000,
        adaptAcrossRequests: true,
      }),
      ['-fwdflat', 'yes', '-ds', '1', '-maxhmmpf', '30000'],
    )
    // The final text of a live utterance is the file search's; the live pass searches at most 5000 HMMs per
    // frame whatever the file search does, and fewer when it does.
    const live = ['-fwdflat', 'no', '-ds', '2', '-maxhmmpf', '5000', '-cmn', 'batch']
    const rest = ['-remove_noise', 'no', '-remove_silence', 'no', '-maxwpf', '10']
    t.same(liveSearchArguments(defaults), [...live, ...rest])
    t.same(liveSearchArguments({ ...defaults, maxHmmsPerFrame: 30000 }), [...live, ...rest])
    t.same(liveSearchArguments({ ...defaults, maxHmmsPerFrame: 3000 })[5], '3000')
    t.notOk(Value.Check(PocketsphinxOptionsSchema, { ...defaults, frameDownsample: 0 }), 'ds below 1 refused')
    t.notOk(Value.Check(PocketsphinxOptionsSchema, { ...defaults, frameDownsample: 1.5 }), 'ds must be whole')
  },
)

t.test('probe: unavailable with a reason and the fix when files are missing', { skip }, async (t) => {
  // A folder outside the models directory is shown as configured; one inside it as `models/…`.
  t.same(await probe({ modelDir: '/elsewhere/model' }), {
    available: false,
    reason: 'acoustic model folder /elsewhere/model/en-us has no mdef',
    fix: 'apt-get install pocketsphinx pocketsphinx-en-us',
  })
  t.match(await probe({ modelDir: 'mine' }), {
    available: false,
    reason: 'acoustic model folder models/mine/en-us has no mdef',
  })
  t.match(await probe({ lm: '/elsewhere/x.lm.bin' }), {
    available: false,
    reason: 'language model /elsewhere/x.lm.bin not found',
  })
  t.match(await probe({ dict: 'missing.dict' }), {
    available: false,
    reason: /dictionary .*missing.dict not found/,
  })
  t.match(await probe({ libraryDir: '/nonexistent/lib' }), {
    available: false,
    reason: 'libpocketsphinx.so.3 or libsphinxbase.so.3 not found in /nonexistent/lib',
  })
})

t.test('load with a missing model fails with ENGINE_LOAD_FAILED and the fix', async (t) => {
  const runner = createEngineRunner({
    engineId: 'pocketsphinx',
    moduleSource: path.join(repoRoot, 'engines/pocketsphinx/index.ts'),
    isolation: 'process',
    context: { options: { ...defaults, modelDir: '/nonexistent/model' }, dataDir: '/x', modelsDir: '/x' },
    concurrency: 1,
    requestTimeoutMs: 60_000,
    loadTimeoutMs: 60_000,
    logger,
  })
  t.teardown(() => runner.close())
  const error = await runner.load().catch((e) => e)
  t.equal(error.code, 'ENGINE_LOAD_FAILED')
  t.match(
    error.message,
    /pocketsphinx: Model not installed: pocketsphinx: acoustic model folder .* has no mdef/,
  )
  t.same(error.extra, { fix: 'apt-get install pocketsphinx pocketsphinx-en-us' })
  t.equal(runner.state, 'failed')
})

t.test('definition: display name and capabilities', async (t) => {
  const name = pocketsphinx.displayName
  t.equal(typeof name === 'function' ? name(defaults) : name, 'PocketSphinx (en-US)')
  t.same(pocketsphinx.capabilities(defaults), {
    customWords: true,
    wordTimestamps: true,
    segmentTimestamps: true,
    languages: ['en'],
    maxAudioSeconds: 60,
    streaming: true,
    logprobs: true,
  })
  t.equal(pocketsphinx.isolation, 'process')
})
