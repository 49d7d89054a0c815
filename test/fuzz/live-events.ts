/**
 * Generated events for the live fuzz test (live.test.ts): realtime client events (JSON text frames, valid and
 * not) and Wyoming events (framed bytes, valid and not), drawn from a seeded {@link Prng} so a seed replays
 * the same sequence.
 */
import type { Prng } from './prng.ts'

export interface RealtimeFrame {
  data: string | Buffer
  binary: boolean
}

const pcm = (rng: Prng, samples: number) => rng.bytes(samples * 2)
const audioB64 = (rng: Prng) => pcm(rng, rng.length(4800)).toString('base64')

/** A JSON value of a random kind (for fields given the wrong type). */
function anyValue(rng: Prng): unknown {
  return rng.pick<() => unknown>([
    () => null,
    () => rng.int(-1e9, 1e9),
    () => rng.next() * 1e12,
    () => true,
    () => 'x'.repeat(rng.length(2000)),
    () => '\ud800',
    () => [],
    () => ({ nested: { deeper: [1, 'a'] } }),
  ])()
}

/**
 * A GA transcription session.update with the fields of openai 7.x drawn at random (keywords, languages,
 * include, semantic_vad with eagerness, noise_reduction): `valid` keeps each to its documented form,
 * otherwise one of them is bent (a keyword with markup or a control character, a wrong type, an unknown value).
 */
function sessionFields(rng: Prng, valid: boolean): unknown {
  const maybe = <T>(value: () => T): T | undefined => (rng.chance(0.5) ? value() : undefined)
  const transcription: Record<string, unknown> = {
    model: maybe(() => rng.pick(['gpt-live-transcribe', 'gpt-transcribe', 'gpt-4o-transcribe', 'whisper-1'])),
    keywords: maybe(() =>
      Array.from({ length: rng.int(0, 5) }, () => rng.pick(['Kubernetes', 'dictum', 'zq'])),
    ),
    languages: maybe(() => rng.pick([['en'], ['en', 'de'], []])),
  }
  const input: Record<string, unknown> = {
    transcription,
    turn_detection: rng.pick([
      null,
      { type: 'server_vad' },
      { type: 'semantic_vad', eagerness: rng.pick(['low', 'medium', 'high', 'auto', undefined]) },
    ]),
  }
  const session: Record<string, unknown> = {
    type: 'transcription',
    include: maybe(() => rng.pick([['item.input_audio_transcription.logprobs'], []])),
    audio: { input },
  }
  if (rng.chance(0.2)) input.noise_reduction = rng.pick([null, { type: 'near_field' }, { type: 'far_field' }])
  if (!valid) {
    rng.pick<() => void>([
      () => {
        transcription.keywords = [
          rng.pick(['<b>x</b>', 'a\nb', 'a\rb', '\u0007', '  ', 'x'.repeat(rng.length(5000))]),
        ]
      },
      () => {
        transcription.keywords = anyValue(rng)
      },
      () => {
        transcription.languages = rng.pick([['klingon'], ['EN-us-x'], anyValue(rng)])
      },
      () => {
        session.include = rng.pick([['no.such.include'], anyValue(rng)])
      },
      () => {
        input.turn_detection = { type: 'semantic_vad', eagerness: rng.pick(['eager', anyValue(rng)]) }
      },
      () => {
        input.noise_reduction = rng.pick([{ type: 'studio' }, anyValue(rng)])
      },
    ])()
  }
  return { type: 'session.update', session }
}

function validRealtime(rng: Prng): unknown {
  return rng.pick<() => unknown>([
    () => ({ type: 'input_audio_buffer.append', audio: audioB64(rng) }),
    () => ({ type: 'input_audio_buffer.append', audio: audioB64(rng), event_id: `evt_${rng.int(0, 999)}` }),
    () => ({ type: 'input_audio_buffer.commit' }),
    () => ({ type: 'input_audio_buffer.clear' }),
    () => ({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: rng.pick([16000, 24000]) },
            turn_detection: null,
            transcription: { language: rng.pick(['en', 'de', undefined]) },
          },
        },
      },
    }),
    () => sessionFields(rng, true),
    () => ({
      type: 'transcription_session.update',
      session: { input_audio_format: 'pcm16', turn_detection: null, input_audio_transcription: {} },
    }),
  ])()
}

function invalidRealtime(rng: Prng): RealtimeFrame {
  const json = (value: unknown): RealtimeFrame => ({ data: JSON.stringify(value), binary: false })
  return rng.pick<() => RealtimeFrame>([
    () => ({ data: 'not json {', binary: false }),
    () => ({ data: '', binary: false }),
    () => ({ data: rng.bytes(rng.length(4096)), binary: true }),
    () => ({ data: rng.bytes(rng.length(4096)).toString('latin1'), binary: false }),
    () => json(anyValue(rng)),
    () => json({ type: anyValue(rng) }),
    () => json({ type: 'no.such.event', event_id: 'e'.repeat(rng.length(20_000)) }),
    () => json({ type: 'response.create' }),
    () => json({ type: 'input_audio_buffer.append', audio: anyValue(rng) }),
    () => json({ type: 'input_audio_buffer.append', audio: '!!not base64!!' }),
    () => json({ type: 'input_audio_buffer.append', audio: 'AAE' }),
    () => json({ type: 'session.update', session: anyValue(rng) }),
    () =>
      json({
        type: 'session.update',
        session: { type: 'transcription', audio: { input: { turn_detection: anyValue(rng) } } },
      }),
    () =>
      json({
        type: 'session.update',
        session: {
          type: 'transcription',
          audio: { input: { format: { type: 'audio/pcm', rate: anyValue(rng) } } },
        },
      }),
    () => json(sessionFields(rng, false)),
    () => ({ data: `${'['.repeat(5000)}${']'.repeat(5000)}`, binary: false }),
  ])()
}

/** The next realtime frame: valid or not, about half and half. */
export function realtimeFrame(rng: Prng): RealtimeFrame {
  if (rng.chance(0.5)) return { data: JSON.stringify(validRealtime(rng)), binary: false }
  return invalidRealtime(rng)
}

/** One Wyoming event as bytes; `data` in the header or in the data section. */
export function wyomingEvent(
  type: string,
  data?: Record<string, unknown>,
  payload?: Buffer,
  dataSection = false,
): Buffer {
  const header: Record<string, unknown> = { type }
  let dataBytes = Buffer.alloc(0)
  if (data && dataSection) {
    dataBytes = Buffer.from(JSON.stringify(data))
    header.data_length = dataBytes.length
  } else if (data) header.data = data
  if (payload) header.payload_length = payload.length
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), dataBytes, payload ?? Buffer.alloc(0)])
}

const MONO16 = { rate: 16000, width: 2, channels: 1 }

function validWyoming(rng: Prng): Buffer {
  const section = rng.chance(0.5)
  return rng.pick<() => Buffer>([
    () => wyomingEvent('describe'),
    () => wyomingEvent('ping', { text: 'x'.repeat(rng.length(1000)) }, undefined, section),
    () => wyomingEvent('transcribe', { name: rng.pick(['fixture-echo', 'no-such-model']), language: 'en' }),
    () => wyomingEvent('audio-start', MONO16, undefined, section),
    () => wyomingEvent('audio-chunk', MONO16, pcm(rng, rng.length(16000)), section),
    () => wyomingEvent('audio-stop', { timestamp: rng.int(0, 1000) }),
    () => wyomingEvent('some-future-event', { anything: anyValue(rng) }),
  ])()
}

/** Events a connection survives: the server answers with an `error` event and goes on. */
function misusedWyoming(rng: Prng): Buffer {
  return rng.pick<() => Buffer>([
    () => wyomingEvent('audio-start', { rate: anyValue(rng), width: anyValue(rng), channels: anyValue(rng) }),
    () => wyomingEvent('audio-chunk', { rate: 16000, width: 1, channels: 1 }, pcm(rng, 10)),
    () => wyomingEvent('audio-chunk', MONO16, rng.bytes(rng.int(1, 99))),
    () => wyomingEvent('transcribe', { name: anyValue(rng) as never, language: anyValue(rng) as never }),
    () => wyomingEvent('ping', { text: anyValue(rng) as never }),
  ])()
}

/** Frames that break the framing: the server answers with an `error` event and closes. */
function malformedWyoming(rng: Prng): Buffer {
  return rng.pick<() => Buffer>([
    () => Buffer.from('hello there\n'),
    () => Buffer.concat([rng.bytes(rng.length(2000)), Buffer.from('\n')]),
    () => Buffer.from('{"data":{}}\n'),
    () => Buffer.from(`{"type":"ping","payload_length":${rng.pick(['-1', '1.5', '"9"', '1e300'])}}\n`),
    () => Buffer.from('{"type":"audio-chunk","payload_length":99999999999}\n'),
    () => Buffer.from('{"type":"describe","data_length":2}\n[]'),
    () => Buffer.from('{"type":"describe","data":[1]}\n'),
    () => Buffer.from(`{"type":"ping","data_length":70000}\n${'{'.repeat(100)}`),
    () => Buffer.from(`{"type":"${'y'.repeat(70_000)}"}\n`),
    () => Buffer.from('[1,2,3]\n'),
  ])()
}

/** The next Wyoming frame and whether the server closes the connection after it. */
export function wyomingFrame(rng: Prng): { bytes: Buffer; closes: boolean } {
  const roll = rng.next()
  if (roll < 0.6) return { bytes: validWyoming(rng), closes: false }
  if (roll < 0.85) return { bytes: misusedWyoming(rng), closes: false }
  return { bytes: malformedWyoming(rng), closes: true }
}
