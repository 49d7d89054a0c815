/**
 * A realtime session whose engine host (pocketsphinx in its own process, as the service runs it) is killed
 * while it transcribes a committed item: the item fails or an error event comes, the API serves on, and the
 * next session works on a new host. The host process is the subject, so this runs in the process tier.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import { build } from '../../helpers/build.ts'
import { listen, rawRequest } from '../../helpers/http.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'
import { completedOf, fileText, openRealtime, pcmOf } from '../../routes/realtime/realtime-client.ts'

const installed = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')
const skip = installed ? false : 'pocketsphinx-en-us is not installed (run scripts/setup.sh)'
const clip = (name: string) => path.join(audioFixturesDir, name)

/** The engine hosts this process started (engine-host.ts marks them with the parent's pid). */
function engineHostPids(): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8')
      if (environ.split('\0').includes(`DICTUM_ENGINE_HOST_PARENT_PID=${process.pid}`))
        pids.push(Number(entry))
    } catch {
      // gone, or not ours
    }
  }
  return pids
}

t.test(
  'the engine host killed mid-session: failed or error event, the next session works',
  { skip },
  async (t) => {
    // The engine host is the subject: pocketsphinx in its own process, as the service runs it.
    const app = await build(t, { speech: { engine: 'pocketsphinx' } }, { runnerFactory: createEngineRunner })
    const port = await listen(t, app)
    const client = await openRealtime(t, port)
    await client.next('session.created')
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { turn_detection: null } } },
    })
    await client.next('session.updated')
    // The fallback path transcribes an item when it is committed: the host is killed while it does.
    client.appendPcm(pcmOf(clip('librispeech-1089-134686-0000.wav')))
    client.send({ type: 'input_audio_buffer.commit' })
    await client.next('input_audio_buffer.committed')
    const hosts = engineHostPids()
    t.ok(hosts.length >= 1, 'the session has an engine host')
    for (const pid of hosts) process.kill(pid, 'SIGKILL')
    const outcome = await client.waitFor(
      (e) =>
        e.type === 'conversation.item.input_audio_transcription.failed' ||
        e.type === 'error' ||
        e.type === 'conversation.item.input_audio_transcription.completed',
    )
    t.not(
      outcome.type,
      'conversation.item.input_audio_transcription.completed',
      'the killed item is not completed',
    )
    t.match(outcome.error, { type: 'server_error', code: /^engine_/, message: /^Speech engine/ })
    t.equal((await rawRequest({ port, path: '/v1/health' })).status, 200, 'the API serves on')

    const next = await openRealtime(t, port)
    await next.next('session.created')
    next.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { turn_detection: null } } },
    })
    const short = pcmOf(clip('goforward.wav'))
    next.appendPcm(short)
    next.send({ type: 'input_audio_buffer.commit' })
    const committed = await next.next('input_audio_buffer.committed')
    const completed = await completedOf(next, committed.item_id)
    t.equal(completed.type, 'conversation.item.input_audio_transcription.completed')
    t.equal(completed.transcript, await fileText(port, short, 24000), 'a new host transcribes')
  },
)
