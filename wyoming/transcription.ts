/**
 * One Wyoming audio stream (`audio-start` … `audio-stop`) on a live session without turn detection: the
 * audio is converted and appended as it arrives, `audio-stop` commits, and the reply follows the protocol's
 * streaming form (1.7): `transcript-start`, a `transcript-chunk` for each delta as the engine decides words
 * (while audio arrives, with an engine that streams), then `transcript` with the whole text (for clients
 * that do not stream) and `transcript-stop`. The chunks concatenate to the transcript's text. A stream
 * longer than `realtime.maxUtteranceSeconds` is several items; their texts are joined with a space.
 */
import { type DictumError, errors } from '../errors/catalogue.ts'
import type { LiveEvent, LiveSession } from '../live/types.ts'
import { type AudioFormat, PcmConverter, sameFormat } from './pcm.ts'

export type Send = (type: string, data?: Record<string, unknown>) => void

export class WyomingTranscription {
  readonly #send: Send
  readonly #language: string | undefined
  #session: LiveSession | null = null
  #converter: PcmConverter
  /** Items committed and not yet completed or failed. */
  #pending = 0
  #texts: string[] = []
  /** What the chunks sent so far spell. */
  #sent = ''
  #started = false
  #itemOfLastDelta: string | null = null
  #error: DictumError | null = null
  #settled: (() => void) | null = null

  constructor(format: AudioFormat, language: string | undefined, send: Send) {
    this.#converter = new PcmConverter(format)
    this.#language = language
    this.#send = send
  }

  attach(session: LiveSession): void {
    this.#session = session
  }

  /** The live session's events. */
  onEvent = (event: LiveEvent): void => {
    switch (event.type) {
      case 'committed':
        this.#pending++
        return
      case 'delta':
        this.#chunk(event.itemId, event.delta)
        return
      case 'completed':
        if (event.transcript !== '') this.#texts.push(event.transcript)
        this.#itemDone()
        return
      case 'failed':
        this.#error ??= event.error
        this.#itemDone()
        return
      case 'error':
        // Misuse (a commit with no audio) leaves an empty transcript; a fatal error ends the stream.
        if (event.fatal) {
          this.#error ??= event.error
          this.#pending = 0
          this.#settled?.()
        }
        return
    }
  }

  /** Audio of the stream; a chunk in another format than the last is converted from its own. */
  audio(format: AudioFormat, pcm: Buffer): void {
    if (!sameFormat(format, this.#converter.format)) {
      this.#append(this.#converter.finish())
      this.#converter = new PcmConverter(format)
    }
    this.#append(this.#converter.push(pcm))
  }

  /** `audio-stop`: commits, waits for every item's text, answers, and closes the session. */
  async finish(): Promise<void> {
    const session = this.#session
    if (!session) return
    this.#append(this.#converter.finish())
    session.commit()
    if (this.#pending > 0 && this.#error === null) {
      await new Promise<void>((resolve) => {
        this.#settled = resolve
      })
    }
    await session.close()
    if (this.#error) {
      this.#send('error', { text: this.#error.message, code: this.#error.code })
      return
    }
    const text = this.#texts.join(' ')
    this.#start()
    // Chunks spell the text; should the engine have revised it at the end, the last chunk cannot take words
    // back, and `transcript` (what clients use) has the final text either way.
    if (text.startsWith(this.#sent) && text.length > this.#sent.length) {
      this.#send('transcript-chunk', { text: text.slice(this.#sent.length) })
    }
    this.#send('transcript', { text, ...this.#languageField() })
    this.#send('transcript-stop')
  }

  /** The connection closed or a new stream replaced this one. */
  cancel(): void {
    void this.#session?.close({ cancel: true })
    this.#settled?.()
  }

  #append(pcm: Buffer): void {
    if (pcm.length > 0) this.#session?.append(pcm)
  }

  #chunk(itemId: string, delta: string): void {
    if (delta === '') return
    // The first words of a later item follow the earlier items' text after a space, as the transcript joins them.
    const text = itemId !== this.#itemOfLastDelta && this.#sent !== '' ? ` ${delta.trimStart()}` : delta
    this.#itemOfLastDelta = itemId
    this.#start()
    this.#sent += text
    this.#send('transcript-chunk', { text })
  }

  #start(): void {
    if (this.#started) return
    this.#started = true
    this.#send('transcript-start', this.#languageField())
  }

  #languageField(): { language?: string } {
    return this.#language ? { language: this.#language } : {}
  }

  #itemDone(): void {
    this.#pending = Math.max(0, this.#pending - 1)
    if (this.#pending === 0) this.#settled?.()
  }
}

/** `audio-stop` (or chunks) without `audio-start` before them. */
export function noAudioStream(what: string): DictumError {
  return errors.INVALID_REQUEST(`${what} without an audio stream: send audio-start first.`)
}
