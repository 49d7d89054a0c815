/** The selected engine not installed: the API says what to run (the engine never starts, in no process). */
import path from 'node:path'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { audioFixturesDir } from '../../helpers/wav.ts'

const JFK = path.join(audioFixturesDir, 'jfk.wav')

t.test('the selected engine not installed: 503 saying what to run', async (t) => {
  const app = await build(t, {
    speech: { engine: 'pocketsphinx', engines: { pocketsphinx: { modelDir: '/nonexistent/model' } } },
  })
  const res = await app.inject({ method: 'POST', url: '/v1/transcribe', payload: { path: JFK } })
  t.equal(res.statusCode, 503)
  t.equal(res.json().code, 'ENGINE_UNAVAILABLE')
  t.match(res.json().error, / Fix: apt-get install pocketsphinx/)
  t.type(res.json().fix, 'string')
  const list = (await app.inject({ url: '/v1/engines' })).json()
  const ps = list.items.find((e: { id: string }) => e.id === 'pocketsphinx')
  t.equal(ps.status, 'unavailable')
  t.type(ps.reason, 'string')
})
