/** `dictum history`: newest first, the API's limit clamping, text and JSON output. */
import t from 'tap'
import { resolveConfig } from '../../config/load.ts'
import { buildApp } from '../../server/app.ts'
import { ConfigSchema } from '../../server/config-schema.ts'
import { fixtureConfig, setup } from './run-cli.ts'

const ENTRIES = 1005

t.test('history', async (t) => {
  const user = setup(t, fixtureConfig())
  // Seeded through the same service the dictation pipeline records with, on the user's data folder.
  const app = await buildApp(resolveConfig(ConfigSchema, { ...fixtureConfig(), dataDir: user.dataDir }), {
    logger: false,
  })
  const start = Date.parse('2025-03-01T10:00:00.000Z')
  for (let i = 0; i < ENTRIES; i++) {
    await app.dictum.history.record({
      rawText: `raw ${i}`,
      finalText: i === ENTRIES - 1 ? 'last one\nwith a line break' : `entry ${i}`,
      appName: i % 2 === 0 ? 'Editor' : '',
      wasAIProcessed: false,
      aiProcessingError: null,
      timestamp: new Date(start + i * 1000),
    })
  }
  await app.close()

  const list = async (...args: string[]) => {
    const result = await user.run(['history', '--json', ...args])
    t.equal(result.code, 0, result.stderr)
    return JSON.parse(result.stdout) as { count: number; items: { finalText: string; timestamp: string }[] }
  }
  const [two, zero, negative, word, huge, none] = await Promise.all([
    list('--limit', '2'),
    list('--limit', '0'),
    list('--limit=-5'),
    list('--limit', 'ten'),
    list('-n', '5000'),
    list(),
  ])
  t.same(
    two.items.map((e) => e.finalText),
    ['last one\nwith a line break', `entry ${ENTRIES - 2}`],
    'newest first',
  )
  t.equal(zero.count, 1, '0 is clamped to 1')
  t.equal(negative.count, 1, 'negative is clamped to 1')
  t.equal(word.count, 100, 'not a whole number: the default 100')
  t.equal(huge.count, 1000, 'clamped to 1000')
  t.equal(none.count, 100, 'default 100')
  t.ok(
    huge.items.every((e, i) => i === 0 || e.timestamp <= huge.items[i - 1]!.timestamp),
    'timestamps descending',
  )

  const text = await user.run(['history', '--limit', '2'])
  t.equal(text.code, 0)
  t.equal(
    text.stdout,
    `2025-03-01 10:16:44  Editor  last one ⏎ with a line break\n2025-03-01 10:16:43  -  entry ${ENTRIES - 2}\n`,
    'one line per entry: UTC time, application, text',
  )
})
