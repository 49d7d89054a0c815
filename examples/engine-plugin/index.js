/**
 * An example engine for dictum: it does not recognise speech, it reports the loud stretches of the audio
 * ("loud part 1, loud part 2"), with a segment for each. Small, deterministic and free of native code, so it shows the
 * plugin SDK without a model: the definition, options with a TypeBox schema, capabilities, a probe, and an
 * instance that loads, transcribes and closes. Load it with config `"plugins": ["<path to this folder>"]`
 * and select it with `"speech": {"engine": "example-energy"}`.
 */
import { defineEngine, errors, Type } from 'dictum-local/plugin'

const SAMPLE_RATE = 16000

const optionsSchema = Type.Object(
  {
    threshold: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.02,
      description: 'RMS level that counts as loud.',
    }),
    windowSeconds: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.1,
      description: 'Analysis window.',
    }),
  },
  { additionalProperties: false },
)

export default defineEngine({
  id: 'example-energy',
  displayName: 'Example: loud parts',
  description: 'Reports the loud stretches of the audio (an example plugin, no speech recognition).',
  optionsSchema,
  capabilities: () => ({
    customWords: false,
    wordTimestamps: false,
    segmentTimestamps: true,
    languages: ['*'],
    maxAudioSeconds: null,
  }),
  // Plain JavaScript without native code cannot crash the API process: it may run inside it.
  isolation: 'none',
  probe: async () => ({ available: true }),
  create: ({ options }) => {
    let loaded = false
    return {
      async load() {
        loaded = true
      },
      async transcribe(request, signal) {
        signal?.throwIfAborted()
        if (!loaded) throw errors.ENGINE_FAILED('example-energy: transcribe before load')
        const parts = loudParts(request.samples, options.threshold, options.windowSeconds)
        const segments = parts.map((part, i) => ({ text: `loud part ${i + 1}`, ...part }))
        // The text says what the segments say: subtitles are written from segments, transcripts from text.
        return {
          text: segments.map((segment) => segment.text).join(', '),
          confidence: parts.length === 0 ? null : 1,
          segments,
        }
      },
      async close() {
        loaded = false
      },
    }
  },
})

/** Runs of windows whose RMS is above the threshold, as start/end seconds. */
function loudParts(samples, threshold, windowSeconds) {
  const size = Math.max(1, Math.round(windowSeconds * SAMPLE_RATE))
  const parts = []
  let open = null
  for (let at = 0; at < samples.length; at += size) {
    const end = Math.min(samples.length, at + size)
    let sum = 0
    for (let i = at; i < end; i++) sum += samples[i] * samples[i]
    const loud = Math.sqrt(sum / (end - at)) >= threshold
    if (loud && open === null) open = at
    if (!loud && open !== null) {
      parts.push({ start: open / SAMPLE_RATE, end: at / SAMPLE_RATE })
      open = null
    }
  }
  if (open !== null) parts.push({ start: open / SAMPLE_RATE, end: samples.length / SAMPLE_RATE })
  return parts
}
