import t from 'tap'
import { rechunk } from '../../audio/chunker.ts'
import { floatToPcm16, pcmToMono } from '../../audio/pcm-convert.ts'
import { concatSamples } from '../../audio/samples.ts'

const s16Mono = { sampleFormat: 's16', channels: 1, blockAlign: 2 } as const

function ramp(n: number, start = 0): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => start + i)
}

async function* blocks(...parts: Float32Array[]) {
  yield* parts
}

async function all(source: AsyncIterable<Float32Array>): Promise<Float32Array[]> {
  const out: Float32Array[] = []
  for await (const chunk of source) out.push(chunk)
  return out
}

t.test('16-bit mono converts the same at any byte offset (typed view and DataView paths)', async (t) => {
  const values = [-32768, -12345, -1, 0, 1, 255, 256, 12345, 32767]
  const aligned = Buffer.alloc(values.length * 2)
  for (const [i, v] of values.entries()) aligned.writeInt16LE(v, i * 2)
  // the same bytes at an odd offset inside a larger buffer: Int16Array cannot view them
  const backing = Buffer.alloc(aligned.length + 1)
  aligned.copy(backing, 1)
  const odd = backing.subarray(1)
  t.equal(odd.byteOffset % 2, 1)
  const expected = values.map((v) => v / 32768)
  t.same([...pcmToMono(aligned, s16Mono)], expected)
  t.same([...pcmToMono(odd, s16Mono)], expected)
  t.same([...pcmToMono(aligned.subarray(0, 5), s16Mono)], expected.slice(0, 2), 'a partial frame is dropped')
})

t.test(
  '16-bit PCM bytes come back bit for bit through floats; other values are clamped and rounded',
  async (t) => {
    const values = [-32768, -32767, -12345, -1, 0, 1, 255, 256, 12345, 32766, 32767]
    const bytes = Buffer.alloc(values.length * 2)
    for (const [i, v] of values.entries()) bytes.writeInt16LE(v, i * 2)
    const back = floatToPcm16(pcmToMono(bytes, s16Mono))
    t.ok(back.equals(bytes), 'every value, the extremes included, as it came')
    const odd = floatToPcm16(Float32Array.from([0.5, -1, 1, 1.5, -2, Number.NaN, 0.1]))
    t.same(
      Array.from({ length: 7 }, (_, i) => odd.readInt16LE(i * 2)),
      [16384, -32768, 32767, 32767, -32768, 0, 3277],
    )
  },
)

t.test('rechunk hands out views of large source blocks and copies only across block edges', async (t) => {
  const source = ramp(25)
  const chunks = await all(rechunk(blocks(source), 10))
  t.same(
    chunks.map((c) => c.length),
    [10, 10, 5],
  )
  t.ok(
    chunks.every((c) => c.buffer === source.buffer),
    'every chunk of a single block is a view of it',
  )
  t.same([...concatSamples(chunks)], [...source])

  const split = await all(rechunk(blocks(ramp(7), ramp(7, 7), ramp(11, 14)), 10))
  t.same(
    split.map((c) => [...c]),
    [[...ramp(10)], [...ramp(10, 10)], [...ramp(5, 20)]],
  )
  t.same(await all(rechunk(blocks(), 10)), [], 'nothing in, nothing out')
  t.same(
    (await all(rechunk(blocks(new Float32Array(0), ramp(3)), 10))).map((c) => [...c]),
    [[0, 1, 2]],
  )
})

t.test('concatSamples returns one view when the parts are adjacent views of one buffer', async (t) => {
  const whole = ramp(30)
  const parts = [whole.subarray(0, 10), whole.subarray(10, 25), whole.subarray(25)]
  const joined = concatSamples(parts)
  t.equal(joined.buffer, whole.buffer, 'no copy')
  t.same([...joined], [...whole])
  const middle = concatSamples([whole.subarray(5, 10), whole.subarray(10, 12)])
  t.equal(middle.byteOffset, 5 * 4)
  t.same([...middle], [5, 6, 7, 8, 9, 10, 11])

  const gap = concatSamples([whole.subarray(0, 10), whole.subarray(11, 20)])
  t.not(gap.buffer, whole.buffer, 'a gap means a copy')
  t.same([...gap], [...ramp(10), ...ramp(9, 11)])
  const other = concatSamples([whole.subarray(0, 5), ramp(3, 100)])
  t.same([...other], [0, 1, 2, 3, 4, 100, 101, 102])
  t.equal(concatSamples([]).length, 0)
})
