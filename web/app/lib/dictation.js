/**
 * Live dictation from the browser's microphone through dictum's realtime WebSocket (docs/realtime.md): the
 * microphone goes through an AudioWorklet (pcm-worklet.js) that makes PCM16 at 24 kHz in 100 ms chunks, sent
 * as `input_audio_buffer.append` events; dictum's server VAD cuts the speech at pauses and answers each
 * utterance (an item) with deltas, then its final text. Events are handed to `onEvent` as they come.
 */
import { realtimeProtocols } from './api.js'

const RATE = 24000
/** Audio kept while the session opens (the engine may be loading): at most ~30 s. */
const MAX_QUEUED_CHUNKS = 300
/** How long Stop waits for the last utterance's text. */
const FINISH_TIMEOUT_MS = 30_000

const workletUrl = new URL('./pcm-worklet.js', import.meta.url).href

function base64(buffer) {
  const bytes = new Uint8Array(buffer)
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

/** An AudioContext at the session's rate, or at the device's when the browser refuses to resample the mic. */
function contextFor(stream) {
  try {
    const context = new AudioContext({ sampleRate: RATE })
    return { context, source: context.createMediaStreamSource(stream) }
  } catch {
    const context = new AudioContext()
    return { context, source: context.createMediaStreamSource(stream) }
  }
}

export class Dictation {
  /** @param {{ onEvent(event: object): void, app?: string }} options */
  constructor({ onEvent, app = 'web' }) {
    this.onEvent = onEvent
    this.app = app
    this.ready = false
    this.queue = []
    /** Items heard (speech_started or a delta) and not yet completed or failed. */
    this.open = new Set()
    this.speaking = null
    this.closed = null
  }

  /** Opens the microphone and the session; resolves once audio flows (it is queued until the session is up). */
  async start() {
    const stream = await navigator.mediaDevices.getUserMedia({
      // The engine hears what the microphone hears: no processing that would change the words.
      audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false },
    })
    this.stream = stream
    const url = new URL(
      `/v1/realtime?intent=transcription&app=${encodeURIComponent(this.app)}`,
      location.href,
    )
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:'
    const ws = new WebSocket(url, realtimeProtocols())
    this.ws = ws
    this.closed = new Promise((resolve) => ws.addEventListener('close', resolve, { once: true }))
    ws.addEventListener('message', (message) => this.#received(JSON.parse(message.data)))
    ws.addEventListener('close', (event) => {
      this.ready = false
      this.onEvent({ type: 'closed', code: event.code, reason: event.reason })
      this.#settle()
    })

    const { context, source } = contextFor(stream)
    this.context = context
    await context.audioWorklet.addModule(workletUrl)
    const node = new AudioWorkletNode(context, 'pcm16-writer', { processorOptions: { rate: RATE } })
    node.port.onmessage = (event) => {
      if (event.data instanceof ArrayBuffer) this.#chunk(event.data)
      else if (event.data === 'flushed') this.flushed?.()
    }
    // Connected to a silent output so every browser runs it (its output is silence).
    const mute = context.createGain()
    mute.gain.value = 0
    source.connect(node).connect(mute).connect(context.destination)
    this.node = node
  }

  #chunk(buffer) {
    if (this.ready && this.ws.readyState === WebSocket.OPEN) this.#append(buffer)
    else if (this.queue.length < MAX_QUEUED_CHUNKS) this.queue.push(buffer)
  }

  #append(buffer) {
    this.ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: base64(buffer) }))
  }

  #received(event) {
    switch (event.type) {
      case 'session.created':
        this.ws.send(
          JSON.stringify({
            type: 'session.update',
            session: {
              type: 'transcription',
              audio: {
                input: {
                  format: { type: 'audio/pcm', rate: RATE },
                  turn_detection: {
                    type: 'server_vad',
                    threshold: 0.5,
                    prefix_padding_ms: 300,
                    silence_duration_ms: 500,
                  },
                },
              },
            },
          }),
        )
        // Sent after the update on the same socket, so they are read at its rate.
        this.ready = true
        for (const buffer of this.queue.splice(0)) this.#append(buffer)
        break
      case 'input_audio_buffer.speech_started':
        this.speaking = event.item_id
        this.open.add(event.item_id)
        break
      case 'input_audio_buffer.committed':
        if (this.speaking === event.item_id) this.speaking = null
        break
      case 'conversation.item.input_audio_transcription.delta':
        this.open.add(event.item_id)
        break
      case 'conversation.item.input_audio_transcription.completed':
      case 'conversation.item.input_audio_transcription.failed':
        this.open.delete(event.item_id)
        this.#settle()
        break
    }
    this.onEvent(event)
  }

  #settle() {
    if ((this.open.size === 0 || this.ws?.readyState !== WebSocket.OPEN) && this.finished) this.finished()
  }

  /**
   * Stops the microphone, sends what the worklet still holds, commits an utterance still being spoken, waits
   * for the text of every utterance heard, then closes the session.
   */
  async stop() {
    if (this.node) {
      const flushed = new Promise((resolve) => {
        this.flushed = resolve
      })
      this.node.port.postMessage('flush')
      await Promise.race([flushed, new Promise((resolve) => setTimeout(resolve, 500))])
      this.node.disconnect()
    }
    for (const track of this.stream?.getTracks() ?? []) track.stop()
    await this.context?.close().catch(() => {})
    const ws = this.ws
    if (!ws) return
    if (ws.readyState === WebSocket.OPEN && this.ready) {
      if (this.speaking) ws.send(JSON.stringify({ type: 'input_audio_buffer.commit' }))
      const done = new Promise((resolve) => {
        this.finished = resolve
      })
      this.#settle()
      await Promise.race([done, new Promise((resolve) => setTimeout(resolve, FINISH_TIMEOUT_MS))])
    }
    if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000)
    await this.closed
  }
}
