/** The app's audio decoder across config edits: a replaced decoder's ffmpeg children never outlive the app. */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { AudioService } from '../../audio/service.ts'
import { resolveConfig } from '../../config/load.ts'
import { ConfigStore } from '../../kernel/config-store.ts'
import { ConfigSchema } from '../../server/config-schema.ts'
import { audioFixturesDir } from '../helpers/fixtures.ts'

/** ffmpeg processes whose parent is this process (Linux /proc). */
function ourFfmpegChildren(): number {
  let count = 0
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      // "pid (comm) state ppid …": comm may hold spaces, so read after its closing parenthesis.
      const [, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(ppid) === process.pid && stat.includes('(ffmpeg)')) count++
    } catch {}
  }
  return count
}

t.test('a decoder replaced by an audio.* edit is closed with the service, ffmpeg and all', async (t) => {
  const dir = t.testdir()
  const longM4a = path.join(dir, 'long.m4a')
  const source = path.join(audioFixturesDir, 'extra/silero-vad-test-en-60s.wav')
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', source, '-c:a', 'aac', longM4a])
  const config = resolveConfig(ConfigSchema, { dataDir: path.join(dir, 'data'), log: { level: 'silent' } })
  const store = new ConfigStore(config)
  const service = new AudioService({ configStore: store, logger: console })
  const first = service.decoder
  const chunks = first.stream({ kind: 'bytes', data: readFileSync(longM4a) }, { chunkSeconds: 1 })
  const iterator = chunks[Symbol.asyncIterator]()
  await iterator.next()
  t.equal(ourFfmpegChildren(), 1, 'a decode is running in ffmpeg')

  await store.update(
    resolveConfig(ConfigSchema, { ...structuredClone(config), audio: { ...config.audio, maxSeconds: 3600 } }),
  )
  t.not(service.decoder, first, 'the edit replaced the decoder')
  t.equal(ourFfmpegChildren(), 1, 'the running decode goes on on the replaced decoder')

  await service.close()
  // Before, the replaced decoder was closed only by an unref'd timer (speech.timeoutMs, 5 min): its ffmpeg
  // outlived the app.
  t.equal(ourFfmpegChildren(), 0, 'closing the service ends it')
  await iterator.return?.(undefined)
})
