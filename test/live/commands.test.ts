/**
 * Editing by voice in live sessions: a dictation session (`commands: true`) carries out spoken commands in
 * each item, a "scratch that" item takes the previous one back (`removes`), history keeps the raw text
 * beside the result; a transcription session (no `commands`) and `dictation.commands: false` leave the
 * words. The streaming fixture engine says the session's keywords first, one word per 100 ms of loud
 * audio, so each item's words are chosen by the test.
 */
import path from 'node:path'
import t, { type Test } from 'tap'
import type { LiveSession, LiveSessionOptions } from '../../live/types.ts'
import { build, FIXTURES } from '../helpers/build.ts'
import { EventLog } from './helpers.ts'

const STREAMING = path.join(FIXTURES, 'plugins/streaming-engine.ts')
const COMMIT: LiveSessionOptions = { turnDetection: null, inputSampleRate: 16000 }

function app(t: Test, overrides: Record<string, unknown> = {}) {
  return build(t, {
    plugins: [STREAMING],
    speech: { engine: 'fixture-streaming-inline' },
    history: { enabled: true },
    ...overrides,
  })
}

/** Loud PCM16 for `words` words of the fixture (100 ms each, and half a word more that adds none). */
function loud(words: number): Buffer {
  const samples = Math.round(1600 * (words + 0.5))
  const pcm = Buffer.alloc(samples * 2)
  for (let i = 0; i < samples; i++) pcm.writeInt16LE(i % 2 === 0 ? 16000 : -16000, i * 2)
  return pcm
}

/** One item that says `keywords` (as the fixture's first words). */
async function say(session: LiveSession, log: EventLog, keywords: string[]): Promise<void> {
  const ended = log.ended()
  session.update({ keywords })
  for (let at = 0, pcm = loud(keywords.length); at < pcm.length; at += 3200) {
    session.append(pcm.subarray(at, at + 3200))
    await new Promise((resolve) => setImmediate(resolve))
  }
  session.commit()
  await log.until(() => log.ended() === ended + 1)
}

t.test(
  'a dictation session carries out spoken commands; "scratch that" takes back the previous item',
  async (t) => {
    const dictum = await app(t)
    const log = new EventLog()
    const session = await dictum.dictum.live.open(
      { ...COMMIT, commands: true, history: { appName: 'Editor' } },
      log.listener,
    )
    await say(session, log, ['keep', 'this', 'comma', 'please'])
    await say(session, log, ['drop', 'this'])
    await say(session, log, ['scratch that'])
    await session.close()

    const [keep, drop, scratch] = log.of('completed')
    t.equal(keep?.transcript, 'keep this, please')
    t.equal(
      log
        .of('delta')
        .filter((d) => d.itemId === keep?.itemId)
        .map((d) => d.delta)
        .join(''),
      'keep this, please',
      'the deltas spell the edited text',
    )
    t.equal(drop?.transcript, 'drop this')
    t.equal(scratch?.transcript, '', 'the command writes nothing')
    t.same(scratch?.removes, [drop?.itemId], 'it takes back the item before it')
    t.same(keep?.removes, [])
    const stored = dictum.dictum.history.list(10).items.map((e) => [e.rawText, e.finalText])
    t.same(
      stored.reverse(),
      [
        ['keep this comma please', 'keep this, please'],
        ['drop this', 'drop this'],
        ['scratch that', ''],
      ],
      'history keeps the raw text beside the result',
    )
  },
)

t.test('a transcription session, or dictation.commands false, leaves the words', async (t) => {
  for (const [name, overrides, commands] of [
    ['transcription session', {}, false],
    ['dictation.commands false', { dictation: { commands: false } }, true],
  ] as const) {
    const dictum = await app(t, overrides)
    const log = new EventLog()
    const session = await dictum.dictum.live.open({ ...COMMIT, commands }, log.listener)
    await say(session, log, ['one', 'comma', 'two'])
    await say(session, log, ['scratch that'])
    await session.close()
    const [first, second] = log.of('completed')
    t.equal(first?.transcript, 'one comma two', name)
    t.equal(second?.transcript, 'scratch that', name)
    t.same(second?.removes, [], name)
  }
})
