/**
 * A feature names the features whose services it uses (`dependencies`): an app whose list lacks one fails
 * at start, naming both, instead of at the first request that resolves the missing service.
 */
import t from 'tap'
import { createApp } from '../../http/app.ts'
import type { Feature } from '../../kernel/container.ts'
import { FEATURES } from '../../server/app.ts'
import { ConfigSchema } from '../../server/config-schema.ts'
import { testConfig } from '../helpers/build.ts'

t.test("dictum's own list holds every feature's dependencies", async (t) => {
  const names = new Set(FEATURES.map((f) => f.name))
  for (const feature of FEATURES) {
    for (const needed of feature.dependencies ?? [])
      t.ok(names.has(needed), `${feature.name} needs ${needed}`)
  }
  const app = await createApp(testConfig(t), {
    features: FEATURES,
    configSchema: ConfigSchema,
    logger: false,
  })
  t.teardown(() => app.close())
  t.ok(app.dictum.dictation, 'and the app starts')
})

t.test('a list without history fails at start, naming the feature that needs it and history', async (t) => {
  const features = FEATURES.filter((f) => f.name !== 'history')
  await t.rejects(createApp(testConfig(t), { features, configSchema: ConfigSchema, logger: false }), {
    code: 'FEATURE_MISSING',
    message: /feature "transcribe" needs "history", not in the app's list of features/,
  })
})

t.test('every missing dependency of the feature is named', async (t) => {
  const lonely: Feature = { name: 'lonely', dependencies: ['dictionary', 'nowhere', 'history'] }
  const error = await createApp(testConfig(t), {
    features: [lonely],
    configSchema: ConfigSchema,
    logger: false,
  }).then(
    () => null,
    (err: unknown) => err as { code: string; message: string },
  )
  t.equal(error?.code, 'FEATURE_MISSING')
  t.match(error?.message, 'feature "lonely" needs "dictionary", "nowhere", "history"')
})
