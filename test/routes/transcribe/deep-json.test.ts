/**
 * The audio routes take large JSON only for base64 audio: deeply nested JSON is refused with the contract's
 * `Invalid JSON audio payload.` before it is parsed (24 MB of it used to block the API ~9 s, +870 MB), and a
 * large body is read in the body worker, off the event loop.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { depthOver } from '../../../http/json-body/parser.ts'
import { build } from '../../helpers/build.ts'
import { audioFixturesDir } from '../../helpers/fixtures.ts'
import { listen, rawRequest } from '../../helpers/http.ts'

t.test('nesting is counted outside strings only', async (t) => {
  t.equal(depthOver('{"a":[{"b":1}]}', 4), false)
  t.equal(depthOver('[[[[[1]]]]]', 4), true)
  t.equal(depthOver('{"s":"[[[[[[[[[[ \\" {{{{{{"}', 2), false, 'brackets and escaped quotes inside a string')
})

t.test('deep JSON on /v1/transcribe and /v1/dictate is a 400, flat JSON still works', async (t) => {
  const app = await build(t)
  const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`
  for (const url of ['/v1/transcribe', '/v1/dictate']) {
    const response = await app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: deep,
    })
    t.equal(response.statusCode, 400, url)
    t.same(response.json(), { error: 'Invalid JSON audio payload.', code: 'INVALID_AUDIO_JSON' })
  }
  const audioBase64 = readFileSync(path.join(audioFixturesDir, 'goforward.wav')).toString('base64')
  const flat = await app.inject({
    method: 'POST',
    url: '/v1/transcribe',
    payload: { audioBase64, language: 'en' },
  })
  t.equal(flat.statusCode, 200)
})

t.test(
  'a 24 MB JSON body is read off the event loop: the API thread never decodes, scans or parses it',
  async (t) => {
    const app = await build(t)
    const port = await listen(t, app)
    // Valid base64 of bytes that are no audio: parsed, decoded, then refused by the audio decoder at once.
    const body = Buffer.from(JSON.stringify({ audioBase64: Buffer.alloc(18_000_000, 7).toString('base64') }))
    // What the API thread is asked to decode or parse while the request runs. No timing: how long a turn
    // takes says as much about a busy machine as about the code (a loaded CI run once measured a 492 ms turn
    // while the worker had the body). The work that grows with the body either runs on this thread or not.
    const largest = { decoded: 0, parsed: 0 }
    const bufferToString = Buffer.prototype.toString
    const parse = JSON.parse
    Buffer.prototype.toString = function (this: Buffer, ...args: unknown[]) {
      largest.decoded = Math.max(largest.decoded, this.length)
      return (bufferToString as (...a: unknown[]) => string).apply(this, args)
    } as typeof bufferToString
    JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
      largest.parsed = Math.max(largest.parsed, String(text).length)
      return parse(text, reviver)
    }) as typeof parse
    const restore = () => {
      Buffer.prototype.toString = bufferToString
      JSON.parse = parse
    }
    const response = await rawRequest({
      port,
      method: 'POST',
      path: '/v1/transcribe',
      headers: { 'content-type': 'application/json' },
      body,
    }).finally(restore)
    t.equal(response.status, 400)
    t.equal(response.json.code, 'AUDIO_DECODE_FAILED', 'parsed and decoded (in the worker), then refused')
    t.ok(
      largest.decoded < 1_000_000,
      `the largest buffer decoded on the API thread: ${largest.decoded} bytes`,
    )
    t.ok(
      largest.parsed < 1_000_000,
      `the largest text parsed on the API thread: ${largest.parsed} characters`,
    )
  },
)
