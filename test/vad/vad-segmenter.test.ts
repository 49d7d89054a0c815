/**
 * The VAD on real speech: pieces at pauses, none longer than the limit, silence and low noise dropped,
 * streamed input equal to whole input, and a 30-minute stream in memory that does not grow with length.
 */
import path from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import t from 'tap'
import { maxSegmentSecondsFor, type SpeechPiece, type VadConfig, VadSegmenter } from '../../vad/index.ts'
import { audioFixturesDir, readWav, vadModelPath } from '../engines/sherpa-onnx/fixtures.ts'

const SR = 16000
const config: VadConfig = {
  enabled: true,
  model: null,
  threshold: 0.5,
  minSilenceSeconds: 0.5,
  minSpeechSeconds: 0.25,
  maxSegmentSeconds: null,
}
const segmenter = await VadSegmenter.open(config, { modelsDir: t.testdir(), fallbackModel: vadModelPath })
t.teardown(() => segmenter.close())
const long = await readWav(path.join(audioFixturesDir, 'extra/silero-vad-test-en-60s.wav'))

async function collect(pieces: AsyncIterable<SpeechPiece>): Promise<SpeechPiece[]> {
  const out: SpeechPiece[] = []
  for await (const piece of pieces) out.push(piece)
  return out
}

function rms(samples: Float32Array, from = 0, to = samples.length): number {
  let sum = 0
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!
  return Math.sqrt(sum / Math.max(1, to - from))
}

async function* chunked(samples: Float32Array, sizes: number[]): AsyncGenerator<Float32Array> {
  let at = 0
  for (let i = 0; at < samples.length; i++) {
    const size = sizes[i % sizes.length]!
    yield samples.slice(at, at + size)
    at += size
  }
}

t.test('the 60 s recording splits at pauses into pieces no longer than the limit', async (t) => {
  for (const max of [30, 10, 3]) {
    const pieces = await collect(segmenter.segment(long, { maxSegmentSeconds: max }))
    t.ok(pieces.length >= 5, `max ${max}: ${pieces.length} pieces`)
    let end = 0
    for (const piece of pieces) {
      t.ok(piece.samples.length <= max * SR, `max ${max}: ${piece.samples.length / SR} s`)
      t.ok(piece.startSeconds >= end - 1e-9, 'in order, not overlapping')
      end = piece.startSeconds + piece.samples.length / SR
    }
    t.ok(end <= long.length / SR + 1e-9, 'inside the recording')
    const speech = pieces.reduce((sum, p) => sum + p.samples.length, 0) / SR
    t.ok(speech > 40 && speech < 60, `max ${max}: ${speech.toFixed(1)} s of speech kept`)
  }
  const pieces = await collect(segmenter.segment(long, { maxSegmentSeconds: 30 }))
  for (let i = 1; i < pieces.length; i++) {
    const gapFrom = Math.round(pieces[i - 1]!.startSeconds * SR + pieces[i - 1]!.samples.length)
    const gapTo = Math.round(pieces[i]!.startSeconds * SR)
    if (gapTo - gapFrom < SR / 10) continue
    t.ok(
      rms(long, gapFrom, gapTo) < rms(pieces[i]!.samples) / 2,
      `the gap before piece ${i} is quieter than speech`,
    )
  }
})

t.test('the pieces carry the recording itself at their start times', async (t) => {
  const pieces = await collect(segmenter.segment(long, { maxSegmentSeconds: 10 }))
  for (const piece of pieces) {
    const start = Math.round(piece.startSeconds * SR)
    t.same(piece.samples.subarray(0, 64), long.subarray(start, start + 64), `piece at ${piece.startSeconds}`)
  }
})

t.test('streamed input in uneven chunks gives the same pieces as one array', async (t) => {
  const whole = await collect(segmenter.segment(long, { maxSegmentSeconds: 10 }))
  const streamed = await collect(
    segmenter.segment(chunked(long, [1000, 37, 4096, 511, 8000]), { maxSegmentSeconds: 10 }),
  )
  t.equal(streamed.length, whole.length)
  for (let i = 0; i < Math.min(whole.length, streamed.length); i++) {
    t.equal(streamed[i]!.startSeconds, whole[i]!.startSeconds)
    t.equal(streamed[i]!.samples.length, whole[i]!.samples.length)
  }
})

t.test('detectors are reused after a reset: an abandoned run leaves nothing behind', async (t) => {
  const first = await collect(segmenter.segment(long, { maxSegmentSeconds: 7 }))
  for await (const _ of segmenter.segment(long, { maxSegmentSeconds: 7 })) break
  const again = await collect(segmenter.segment(long, { maxSegmentSeconds: 7 }))
  t.same(
    again.map((p) => [p.startSeconds, p.samples.length]),
    first.map((p) => [p.startSeconds, p.samples.length]),
  )
})

t.test('digital silence and low noise give no pieces', async (t) => {
  t.same(await collect(segmenter.segment(new Float32Array(SR * 20), { maxSegmentSeconds: 30 })), [])
  let seed = 1
  const noise = Float32Array.from({ length: SR * 20 }, () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return (seed / 2 ** 31 - 0.5) * 0.002
  })
  t.same(await collect(segmenter.segment(noise, { maxSegmentSeconds: 30 })), [], 'noise at about -60 dBFS')
})

t.test('speech surrounded by silence is found where it is', async (t) => {
  const jfk = await readWav(path.join(audioFixturesDir, 'jfk.wav'))
  const padded = new Float32Array(SR * 5 + jfk.length + SR * 5)
  padded.set(jfk, SR * 5)
  const pieces = await collect(segmenter.segment(padded, { maxSegmentSeconds: 30 }))
  t.ok(pieces.length >= 1)
  t.ok(pieces[0]!.startSeconds >= 4.8, `first piece at ${pieces[0]!.startSeconds}`)
  const last = pieces.at(-1)!
  t.ok(last.startSeconds + last.samples.length / SR <= 5 + jfk.length / SR + 0.6, 'ends with the speech')
})

t.test('an aborted segmentation stops', async (t) => {
  const controller = new AbortController()
  const pieces = segmenter.segment(long, { maxSegmentSeconds: 10, signal: controller.signal })
  await pieces.next()
  controller.abort(new Error('stop'))
  await t.rejects(collect(pieces), { message: 'stop' })
})

t.test('the piece limit: config, else the engine, never above the engine', async (t) => {
  t.equal(maxSegmentSecondsFor(null, 29), 29)
  t.equal(maxSegmentSecondsFor(10, 29), 10)
  t.equal(maxSegmentSecondsFor(120, 29), 29)
  t.equal(maxSegmentSecondsFor(null, null), 30)
  t.equal(maxSegmentSecondsFor(90, null), 90)
})

t.test('a 30-minute stream goes through in memory that does not grow with length', async (t) => {
  const clips = [long, await readWav(path.join(audioFixturesDir, 'jfk.wav'))]
  const total = SR * 60 * 30
  async function* thirtyMinutes(): AsyncGenerator<Float32Array> {
    let sent = 0
    for (let i = 0; sent < total; i++) {
      const clip = clips[i % clips.length]!
      for (let at = 0; at < clip.length && sent < total; at += 4000) {
        const part = clip.slice(at, Math.min(at + 4000, clip.length, at + total - sent))
        sent += part.length
        yield part
      }
    }
  }
  // Memory is read after a full garbage collection: between collections rss climbs with garbage (a saw-tooth
  // of ~50 MB over ~20 min of audio here) and only a collection tells garbage from audio kept by mistake.
  v8.setFlagsFromString('--expose-gc')
  const collectGarbage = vm.runInNewContext('gc') as () => void
  // V8 frees the backing stores of dead ArrayBuffers on a background thread after a collection, so right
  // after one `arrayBuffers` may still count some: collect, let a turn of the loop pass, and collect again.
  const settled = async () => {
    collectGarbage()
    await new Promise((resolve) => setTimeout(resolve, 50))
    collectGarbage()
    const usage = process.memoryUsage()
    return {
      rss: usage.rss,
      kept: usage.heapUsed + usage.arrayBuffers,
      heap: usage.heapUsed,
      buffers: usage.arrayBuffers,
    }
  }
  const half = total / SR / 2
  let atHalf: Awaited<ReturnType<typeof settled>> | null = null
  let pieces = 0
  let longest = 0
  let lastAt = 0
  for await (const piece of segmenter.segment(thirtyMinutes(), { maxSegmentSeconds: 20 })) {
    pieces++
    longest = Math.max(longest, piece.samples.length / SR)
    lastAt = piece.startSeconds
    if (atHalf === null && piece.startSeconds >= half) atHalf = await settled()
  }
  const atEnd = await settled()
  t.ok(pieces > 100, `${pieces} pieces`)
  t.ok(longest <= 20, `longest ${longest} s`)
  t.ok(lastAt > 1700, 'the whole half hour was seen')
  const MB = 1024 * 1024
  // Memory that grew with length would add the second half's samples: 15 min of float32, 57.6 MB.
  const halfAudio = (total / 2) * 4
  t.ok(
    atEnd.rss - atHalf!.rss < halfAudio / 2,
    `rss after a collection: ${(atHalf!.rss / MB).toFixed(1)} MB at 15 min, ${(atEnd.rss / MB).toFixed(1)} MB at 30 min (linear growth would add ${(halfAudio / MB).toFixed(1)} MB)`,
  )
  t.ok(
    atEnd.kept - atHalf!.kept < 10 * MB,
    `JS heap and buffers after a collection: ${(atHalf!.kept / MB).toFixed(1)} MB, then ${(atEnd.kept / MB).toFixed(1)} MB (heap ${(atHalf!.heap / MB).toFixed(1)}/${(atEnd.heap / MB).toFixed(1)}, buffers ${(atHalf!.buffers / MB).toFixed(1)}/${(atEnd.buffers / MB).toFixed(1)})`,
  )
})

t.test('a closed segmenter refuses work', async (t) => {
  const other = await VadSegmenter.open(config, { modelsDir: t.testdir(), fallbackModel: vadModelPath })
  other.close()
  await t.rejects(collect(other.segment(long, { maxSegmentSeconds: 10 })), { code: 'INTERNAL' })
})
