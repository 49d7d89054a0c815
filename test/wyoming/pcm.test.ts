import t from 'tap'
import { PcmConverter } from '../../wyoming/pcm.ts'

const values = [-32768, -32767, -12345, -1, 0, 1, 255, 256, 12345, 32766, 32767]

t.test('16 kHz 16-bit mono reaches the session bit for bit, whatever the chunks', async (t) => {
  const bytes = Buffer.alloc(values.length * 2)
  for (const [i, v] of values.entries()) bytes.writeInt16LE(v, i * 2)
  const converter = new PcmConverter({ rate: 16000, width: 2, channels: 1 })
  // Split inside a frame: the odd byte waits for the next chunk.
  const out = Buffer.concat([
    converter.push(bytes.subarray(0, 5)),
    converter.push(bytes.subarray(5)),
    converter.finish(),
  ])
  t.ok(out.equals(bytes), `${[...new Int16Array(out.buffer, out.byteOffset, out.length / 2)]}`)
})

t.test('24-bit audio at 16 kHz becomes its top 16 bits', async (t) => {
  const bytes = Buffer.alloc(values.length * 3)
  for (const [i, v] of values.entries()) bytes.writeIntLE(v * 256, i * 3, 3)
  const out = Buffer.concat([new PcmConverter({ rate: 16000, width: 3, channels: 1 }).push(bytes)])
  t.same(
    values.map((_, i) => out.readInt16LE(i * 2)),
    values,
  )
})
