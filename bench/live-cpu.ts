/**
 * Section `live-cpu`: where the CPU goes per second of live pocketsphinx audio, measured in process (this
 * process's CPU time, `process.cpuUsage`, so other processes' load on the machine counts far less than in
 * wall-clock figures). On the shared clips (utterances up to 20 s), per second of audio:
 * - the live pass: `processChunk` (ps_process_raw) per 100 ms chunk, with `ps_get_hyp` after every chunk or
 *   every few, and with a lighter search for the live decoder only (the final keeps the file settings);
 * - the final pass: `decode()` of the whole utterance (batch CMN), what a file transcription of it costs,
 *   beside the same with the lighter search of `maxHmmsPerFrame: 5000` (the default is the library's 30000);
 * - the service's share: Silero turn detection (512-sample windows), resampling 24 kHz to 16 kHz, an append
 *   event's JSON and base64, and the chunk's serialisation to the engine host (`serialization: 'advanced'`).
 * The live variants also report how far the live pass's last hypothesis is from the reference (WER), since
 * partials are provisional but still shown.
 */
import { deserialize, serialize } from 'node:v8'
import { Value } from '@sinclair/typebox/value'
import { floatToPcm16 } from '../audio/pcm-convert.ts'
import { createResampler } from '../audio/resampler.ts'
import { PocketsphinxDecoder } from '../engines/pocketsphinx/decoder.ts'
import { findLibraries } from '../engines/pocketsphinx/libraries.ts'
import { loadNative } from '../engines/pocketsphinx/native.ts'
import {
  PocketsphinxOptionsSchema,
  resolveModelPaths,
  searchArguments,
} from '../engines/pocketsphinx/options.ts'
import { hypothesisText } from '../engines/pocketsphinx/transcript.ts'
import { ItemText } from '../live/deltas.ts'
import { TurnDetector } from '../live/turn-detector.ts'
import { floatToInt16 } from '../sdk/plugin.ts'
import { readClip } from '../test/engines/pocketsphinx/clips.ts'
import { referenceTranscripts, vadModelPath } from '../test/helpers/fixtures.ts'
import { corpusWordErrorRate } from '../test/helpers/wer.ts'
import { VadSchema } from '../vad/config.ts'
import { VadSegmenter } from '../vad/vad-segmenter.ts'
import { median, round } from './lib/load.ts'
import { decoderSetup } from './live-decoder-setup.ts'

const RATE = 16000
const CHUNK = RATE / 10

/**
 * Live-pass variants: arguments replacing the file search's (or added), the chunk the engine gets (100 ms:
 * a client committing its items, whose appends go on as they come; 32 ms: server_vad, whose session writes
 * each VAD window), and how much audio between two hypotheses (`ps_get_hyp`).
 */
const LIVE_VARIANTS: { name: string; change: string[]; chunk: number; hypothesisEvery: number }[] = [
  { name: 'file search', change: [], chunk: CHUNK, hypothesisEvery: CHUNK },
  { name: '-maxhmmpf 10000', change: ['-maxhmmpf', '10000'], chunk: CHUNK, hypothesisEvery: CHUNK },
  {
    name: '-maxhmmpf 10000, 32 ms chunks',
    change: ['-maxhmmpf', '10000'],
    chunk: 512,
    hypothesisEvery: 512,
  },
  {
    name: '-maxhmmpf 10000, 32 ms chunks, hypothesis every 96 ms',
    change: ['-maxhmmpf', '10000'],
    chunk: 512,
    hypothesisEvery: 1536,
  },
  {
    name: '-maxhmmpf 10000, hypothesis every 200 ms',
    change: ['-maxhmmpf', '10000'],
    chunk: CHUNK,
    hypothesisEvery: 2 * CHUNK,
  },
  {
    name: '-maxhmmpf 10000, hypothesis every 300 ms',
    change: ['-maxhmmpf', '10000'],
    chunk: CHUNK,
    hypothesisEvery: 3 * CHUNK,
  },
  { name: '-maxhmmpf 5000', change: ['-maxhmmpf', '5000'], chunk: CHUNK, hypothesisEvery: CHUNK },
  { name: '-maxhmmpf 4000', change: ['-maxhmmpf', '4000'], chunk: CHUNK, hypothesisEvery: CHUNK },
  {
    name: '-maxhmmpf 5000 -maxwpf 10',
    change: ['-maxhmmpf', '5000', '-maxwpf', '10'],
    chunk: CHUNK,
    hypothesisEvery: CHUNK,
  },
  {
    name: '-maxhmmpf 5000, 32 ms chunks, hypothesis every 96 ms',
    change: ['-maxhmmpf', '5000'],
    chunk: 512,
    hypothesisEvery: 1536,
  },
  {
    name: '-maxhmmpf 10000 -ds 3',
    change: ['-maxhmmpf', '10000', '-ds', '3'],
    chunk: CHUNK,
    hypothesisEvery: CHUNK,
  },
  {
    name: '-maxhmmpf 10000 -topn 2',
    change: ['-maxhmmpf', '10000', '-topn', '2'],
    chunk: CHUNK,
    hypothesisEvery: CHUNK,
  },
  {
    name: '-maxhmmpf 10000 -maxwpf 10',
    change: ['-maxhmmpf', '10000', '-maxwpf', '10'],
    chunk: CHUNK,
    hypothesisEvery: CHUNK,
  },
  {
    name: '-maxhmmpf 10000 -pl_window 10',
    change: ['-maxhmmpf', '10000', '-pl_window', '10'],
    chunk: CHUNK,
    hypothesisEvery: CHUNK,
  },
]

/** `base` with each `-name value` pair of `change` replacing the same name's value, or added. */
function withArguments(base: string[], change: string[]): string[] {
  const out = [...base]
  for (let i = 0; i < change.length; i += 2) {
    const at = out.indexOf(change[i] as string)
    if (at >= 0) out[at + 1] = change[i + 1] as string
    else out.push(change[i] as string, change[i + 1] as string)
  }
  return out
}

interface Utterance {
  reference: string
  samples: Float32Array
  pcm: Int16Array
}

/** CPU ms (user + system) spent by `run`. */
function cpuMs(run: () => void): number {
  const before = process.cpuUsage()
  run()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

/** What a live pass gives: its last hypothesis, and the deltas a session would send (live/deltas.ts). */
interface LivePassText {
  hypothesis: string
  /** The deltas while speaking, then the last one the final gives. */
  deltas: string
  /** The longest stretch without a delta while the audio went on, ms. */
  longestGapMs: number
}

/**
 * The live pass over one utterance in chunks of `chunk` samples: a hypothesis once `every` samples have come
 * since the last one (and after the last chunk).
 */
function livePass(
  decoder: PocketsphinxDecoder,
  pcm: Int16Array,
  chunk: number,
  every: number,
  final: string,
): LivePassText {
  const item = new ItemText((text) => text, 0)
  decoder.startUtterance()
  let hypothesis = ''
  let sinceHypothesis = 0
  let lastDelta = 0
  let longestGapMs = 0
  for (let at = 0; at < pcm.length; at += chunk) {
    const end = Math.min(pcm.length, at + chunk)
    sinceHypothesis += end - at
    const ask = sinceHypothesis >= every || end === pcm.length
    const text = decoder.processChunk(pcm.subarray(at, end), ask)
    if (text === null) continue
    sinceHypothesis = 0
    hypothesis = hypothesisText(text)
    if (item.partial(hypothesis).delta !== '') {
      if (lastDelta > 0) longestGapMs = Math.max(longestGapMs, ((end - lastDelta) / RATE) * 1000)
      lastDelta = end
    }
  }
  decoder.endUtterance()
  return { hypothesis, deltas: item.emitted + item.final(final).delta, longestGapMs }
}

export async function benchLiveCpu(rounds = 1): Promise<Record<string, number | string>> {
  const libraries = findLibraries()
  if (!libraries) throw new Error('pocketsphinx is not installed')
  const options = Value.Default(PocketsphinxOptionsSchema, {}) as never
  const paths = resolveModelPaths(options, '/')
  const native = await loadNative(libraries)
  const fileSearch = searchArguments(options)
  const batch = PocketsphinxDecoder.open(native, paths, fileSearch)
  // The lighter file search a slow machine may set (`maxHmmsPerFrame: 5000`), side by side with the default.
  const lighterSearch = withArguments(fileSearch, ['-maxhmmpf', '5000'])
  const lighterBatch = PocketsphinxDecoder.open(native, paths, lighterSearch)
  // A live decoder per variant: live CMN carries from one utterance to the next on a decoder, so variants
  // sharing one would see each other's audio.
  const gaps: Record<string, number[]> = {}
  // LIVE_CPU_VARIANTS: only the variants of these names (separated by |), for a quicker run.
  const only = process.env.LIVE_CPU_VARIANTS?.split('|')
  const variants = LIVE_VARIANTS.filter((variant) => !only || only.includes(variant.name)).map((variant) => ({
    ...variant,
    decoder: PocketsphinxDecoder.open(native, paths, withArguments(fileSearch, variant.change)),
  }))
  const utterances: Utterance[] = []
  for (const clip of referenceTranscripts()) {
    const samples = await readClip(clip.path)
    if (samples.length / RATE > 20) continue
    utterances.push({ reference: clip.reference, samples, pcm: floatToInt16(samples) })
  }
  const seconds = rounds * utterances.reduce((sum, u) => sum + u.samples.length / RATE, 0)
  const perSecond = (ms: number) => round(ms / seconds, 1)
  const totals: Record<string, number> = {}
  const texts: Record<string, { reference: string; hypothesis: string }[]> = {}
  const add = (name: string, ms: number, reference?: string, hypothesis?: string) => {
    totals[name] = (totals[name] ?? 0) + ms
    if (reference === undefined || hypothesis === undefined) return
    const pairs = texts[name] ?? []
    pairs.push({ reference, hypothesis })
    texts[name] = pairs
  }
  let sameAsLighter = 0
  try {
    for (let r = 0; r < rounds; r++) {
      for (const u of utterances) {
        let text = ''
        add(
          'final pass: decode() of the whole utterance',
          cpuMs(() => {
            text = hypothesisText(batch.decode(u.pcm).hypothesis)
          }),
          u.reference,
          text,
        )
        const final = text
        let lighter = ''
        add(
          'final pass, the lighter file search (-maxhmmpf 5000)',
          cpuMs(() => {
            lighter = hypothesisText(lighterBatch.decode(u.pcm).hypothesis)
          }),
          u.reference,
          lighter,
        )
        if (lighter === final) sameAsLighter++
        const pass = (name: string, variant: (typeof variants)[number]) => {
          let live: LivePassText = { hypothesis: '', deltas: '', longestGapMs: 0 }
          const ms = cpuMs(() => {
            live = livePass(variant.decoder, u.pcm, variant.chunk, variant.hypothesisEvery, final)
          })
          add(name, ms, u.reference, live.hypothesis)
          add(`${name}: deltas`, 0, u.reference, live.deltas)
          const longest = gaps[name] ?? []
          longest.push(live.longestGapMs)
          gaps[name] = longest
        }
        for (const variant of variants) pass(`live pass, ${variant.name}`, variant)
        add(
          'service: Silero turn detection',
          cpuMs(() => turnDetection(u.samples)),
        )
        add(
          'service: resampling 24 kHz to 16 kHz',
          cpuMs(() => resample24k(u.samples)),
        )
        add(
          'service: append events (JSON, base64, PCM16 to float)',
          cpuMs(() => appendEvents(u.samples)),
        )
        add(
          'service: chunks serialised to the engine host and back',
          cpuMs(() => hostMessages(u.samples)),
        )
      }
    }
  } finally {
    batch.free()
    lighterBatch.free()
    for (const { decoder } of variants) decoder.free()
  }
  const figures: Record<string, number | string> = {
    'audio seconds measured': round(seconds, 1),
    'final pass texts equal to the lighter file search': `${sameAsLighter} of ${rounds * utterances.length}`,
    ...(await piecesAgainstWhole(native, paths, fileSearch, utterances)),
    ...(await decoderSetup(native, paths, withArguments(fileSearch, ['-maxhmmpf', '10000']))),
  }
  for (const [name, ms] of Object.entries(totals)) {
    if (!name.endsWith(': deltas')) figures[`${name}: CPU ms per audio second`] = perSecond(ms)
    const longest = gaps[name]
    if (longest) figures[`${name}: longest delta gap per clip, median ms`] = median(longest)
    const pairs = texts[name]
    if (pairs) figures[`${name}: WER of its last hypothesis`] = round(corpusWordErrorRate(pairs), 3)
  }
  return figures
}

/** A session's Silero detector fed the utterance window by window (what server_vad costs). */
function turnDetection(samples: Float32Array): void {
  const detector = new TurnDetector({
    model: vadModelPath,
    threshold: 0.5,
    silenceDurationMs: 500,
    minSpeechSeconds: 0.25,
    maxUtteranceSeconds: 120,
    origin: 0,
  })
  for (let at = 0; at < samples.length; at += 512) detector.accept(samples.subarray(at, at + 512))
}

/** The same audio as 24 kHz (a 24 kHz client) resampled back in 100 ms pushes. */
function resample24k(samples: Float32Array): void {
  const input = new Float32Array(Math.floor((samples.length * 3) / 2))
  const resampler = createResampler(24000, RATE)
  for (let at = 0; at < input.length; at += 2400) resampler.push(input.subarray(at, at + 2400))
  resampler.finish(input.length)
}

/** What the realtime route does with each 100 ms append event before the session gets samples. */
function appendEvents(samples: Float32Array): void {
  const pcm = floatToPcm16(samples)
  for (let at = 0; at < pcm.length; at += CHUNK * 2) {
    const text = JSON.stringify({
      type: 'input_audio_buffer.append',
      audio: Buffer.from(pcm.subarray(at, at + CHUNK * 2)).toString('base64'),
    })
    const event = JSON.parse(text) as { audio: string }
    const bytes = Buffer.from(event.audio, 'base64')
    const out = new Float32Array(bytes.length / 2)
    for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(i * 2) / 32768
  }
}

/** A chunk's `stream-write` message through V8's serialiser (what IPC does) and back. */
function hostMessages(samples: Float32Array): void {
  for (let at = 0; at < samples.length; at += CHUNK)
    deserialize(serialize({ type: 'stream-write', id: 1, samples: samples.subarray(at, at + CHUNK) }))
}

/**
 * Whether the final could be decoded piece by piece while the utterance goes on: each clip cut by the VAD at
 * its pauses (as a long file is), the pieces decoded apart with batch CMN and joined, against the whole
 * clip decoded at once (what a file transcription of an utterance does).
 */
async function piecesAgainstWhole(
  native: Awaited<ReturnType<typeof loadNative>>,
  paths: ReturnType<typeof resolveModelPaths>,
  search: string[],
  utterances: Utterance[],
): Promise<Record<string, number | string>> {
  const vad = await VadSegmenter.open(Value.Default(VadSchema, {}) as never, {
    modelsDir: '/nonexistent',
    fallbackModel: vadModelPath,
  })
  const decoder = PocketsphinxDecoder.open(native, paths, search)
  const figures: Record<string, number | string> = {}
  try {
    for (const pause of [0.5]) {
      let same = 0
      let cut = 0
      const whole: { reference: string; hypothesis: string }[] = []
      const pieces: { reference: string; hypothesis: string }[] = []
      for (const u of utterances) {
        const texts: string[] = []
        let count = 0
        for await (const piece of vad.segment(u.samples, {
          maxSegmentSeconds: 30,
          tuning: { minSilenceSeconds: pause },
        })) {
          texts.push(hypothesisText(decoder.decode(floatToInt16(piece.samples)).hypothesis))
          count++
        }
        const joined = texts.filter(Boolean).join(' ')
        const one = hypothesisText(decoder.decode(u.pcm).hypothesis)
        if (count > 1) cut++
        if (joined === one) same++
        whole.push({ reference: u.reference, hypothesis: one })
        pieces.push({ reference: u.reference, hypothesis: joined })
      }
      figures[`final in VAD pieces (pauses ≥ ${pause} s): clips cut, texts equal to the whole decode`] =
        `${cut} of ${utterances.length}; ${same} of ${utterances.length}`
      figures[`final in VAD pieces (pauses ≥ ${pause} s): WER pieces, whole`] =
        `${round(corpusWordErrorRate(pieces), 3)}, ${round(corpusWordErrorRate(whole), 3)}`
    }
  } finally {
    decoder.free()
    vad.close()
  }
  return figures
}
