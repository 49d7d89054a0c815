/**
 * Large bodies and realtime frames are parsed in the body worker (http/json-body/parser.ts). A frame the
 * caller hands over goes to the worker without a copy when it is a whole buffer of its own (issue 28 item 2:
 * a 1 MB append was copied once more on the API's thread); a slice of a shared buffer is copied, and so is
 * whatever is not handed over.
 */
import t from 'tap'
import { parseOffThread } from '../../http/json-body/parser.ts'

const REQUEST = { maxDepth: 4, base64Fields: ['audio'] } as const
const audio = Buffer.alloc(300_000, 7)
const frame = () =>
  Buffer.from(JSON.stringify({ type: 'input_audio_buffer.append', audio: audio.toString('base64') }))

t.test('a whole buffer handed over is moved to the worker, not copied', async (t) => {
  const bytes = frame()
  t.equal(bytes.byteLength, bytes.buffer.byteLength, 'the frame is a buffer of its own')
  const { parsed, decoded } = await parseOffThread(bytes, REQUEST, { handOver: true })
  t.equal(bytes.buffer.byteLength, 0, 'its memory now belongs to the worker')
  t.same(parsed, { ok: true, value: { type: 'input_audio_buffer.append' } })
  t.ok(decoded.audio && Buffer.from(decoded.audio).equals(audio), 'the audio is decoded')
})

t.test('a slice of a larger buffer, or bytes not handed over, are copied', async (t) => {
  const whole = frame()
  const shared = Buffer.concat([Buffer.from(' '), whole, Buffer.from(' ')])
  const slice = shared.subarray(1, shared.length - 1)
  const fromSlice = await parseOffThread(slice, REQUEST, { handOver: true })
  t.equal(shared.buffer.byteLength, shared.length, 'the shared buffer is left whole')
  t.ok(fromSlice.parsed.ok, 'the slice is parsed')
  const kept = await parseOffThread(whole, REQUEST)
  t.equal(whole.buffer.byteLength, whole.length, 'bytes not handed over are left as they were')
  t.ok(kept.decoded.audio && Buffer.from(kept.decoded.audio).equals(audio), 'and parsed')
})
