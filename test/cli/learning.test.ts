/** `dictum history correct` and `dictum dictionary suggestions`: the correction, the suggestion, accept. */
import t from 'tap'
import { resolveConfig } from '../../config/load.ts'
import { buildApp } from '../../server/app.ts'
import { ConfigSchema } from '../../server/config-schema.ts'
import { fixtureConfig, setup } from './run-cli.ts'

t.test('correct an entry, list the suggestion, accept it', async (t) => {
  const user = setup(t, fixtureConfig())
  const app = await buildApp(resolveConfig(ConfigSchema, { ...fixtureConfig(), dataDir: user.dataDir }), {
    logger: false,
  })
  const entry = await app.dictum.history.record({
    rawText: 'he did it him self',
    finalText: 'he did it him self',
    wasAIProcessed: false,
    aiProcessingError: null,
    engine: 'fixture-echo',
  })
  await app.close()

  const corrected = await user.run(['history', 'correct', entry!.id, 'He did it himself.'])
  t.equal(corrected.code, 0, corrected.stderr)
  t.match(corrected.stdout, /replacement "him self" → "himself" \(heard "him self"\)\s+pending/)
  const listed = JSON.parse((await user.run(['dictionary', 'suggestions', '--json'])).stdout)
  t.equal(listed.count, 1)
  const id = listed.items[0].id
  const accepted = await user.run(['dictionary', 'suggestions', '--accept', id, '--json'])
  t.equal(accepted.code, 0, accepted.stderr)
  t.equal(JSON.parse(accepted.stdout).state, 'accepted')
  const exported = JSON.parse((await user.run(['dictionary', 'export', '-'])).stdout)
  t.match(exported.replacements, [{ triggers: ['him self'], replacement: 'himself' }])
  const usage = await user.run(['dictionary', 'suggestions', '--accept', id, '--dismiss', id])
  t.equal(usage.code, 2)
  const missing = await user.run(['history', 'correct', entry!.id])
  t.equal(missing.code, 2)
})
