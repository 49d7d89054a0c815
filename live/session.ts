/**
 * One live session (docs/live.md): PCM16 in at 16 or 24 kHz, converted to 16 kHz float, cut into items by
 * the server VAD or the client's commits, each item transcribed (streaming, or whole at its end), and the
 * {@link LiveEvent}s out. Completions are reported in item order; storing an item in history never ends
 * the session. Misuse gives a non-fatal `error` event; idling or flooding gives a fatal one.
 */

import { randomUUID } from 'node:crypto'
import { pcmToMono } from '../audio/pcm-convert.ts'
import { createResampler, type Resampler } from '../audio/resampler.ts'
import type { AudioService } from '../audio/service.ts'
import type { DictumConfig } from '../config/schema.ts'
import type { DictionaryService } from '../dictionary/service.ts'
import { type DictumError, errors } from '../errors/catalogue.ts'
import { finishRecording, startRecording } from '../history/recording.ts'
import type { HistoryService } from '../history/service.ts'
import type { EngineTranscribeResult, PluginLogger } from '../kernel/contracts/engine.ts'
import type { AcquiredEngine, ReportedCapabilities } from '../kernel/registry.ts'
import { applyDictationCommands } from '../text/commands.ts'
import { engineCustomWords, requestWords } from '../transcription/custom-words.ts'
import { resultTokens } from '../transcription/logprobs.ts'
import { languageAmong } from '../transcription/service.ts'
import { CommittedItems } from './committed-items.ts'
import { ItemText, longestTriggerWords } from './deltas.ts'
import { liveErrors } from './errors.ts'
import { InputQueue } from './input-queue.ts'
import { asDictumError, LiveItem, SAMPLE_RATE } from './item.ts'
import { RecentAudio } from './recent-audio.ts'
import { type TurnDetectorOptions, type TurnEvent, thresholdProblem, WINDOW } from './turn-detector.ts'
import type { SessionTurnDetector, TurnDetectorPool } from './turn-detector-pool.ts'
import type { LiveEvent, LiveEventListener, LiveSession, LiveSessionOptions, ServerVad } from './types.ts'

export interface SessionDeps {
  engine: AcquiredEngine
  dictionary: DictionaryService
  history: HistoryService
  /** Where a kept recording is encoded (history/recording.ts, as /v1/dictate's). */
  audio: AudioService
  config: () => Readonly<DictumConfig>
  logger: PluginLogger
  /** The vetted Silero model file, or null (then server VAD is refused). */
  vadModel: string | null
  /** Whether audio holds speech (vad/service.ts), for the fallback's client-committed items; null: no VAD. */
  hasSpeech: ((samples: Float32Array) => Promise<boolean>) | null
  /** Called once the session is closed and has released the engine. */
  onClosed: () => void
  /** Where server VAD detectors come from and go back to (the service's). */
  turnDetectors: TurnDetectorPool
}

interface OpenItem {
  item: LiveItem
  text: ItemText
  /** Set once its result is being reported: later partials are dropped. */
  done: boolean
}

/** Completed items a later "scratch that" may still take back (older ones are out of reach). */
const MAX_REMOVABLE = 100
/** Words of the longest editing command ("exclamation mark", "all caps <word>"), for the deltas' hold-back. */
const LONGEST_COMMAND_WORDS = 3

type Settings = Pick<LiveSessionOptions, 'turnDetection' | 'language' | 'languages' | 'prompt' | 'keywords'>

export class LiveSessionImpl implements LiveSession {
  readonly id = `sess_${randomUUID().replaceAll('-', '')}`
  readonly #deps: SessionDeps
  readonly #listener: LiveEventListener
  readonly #inputRate: 16000 | 24000
  readonly #history: LiveSessionOptions['history']
  /** Items go through the editing stage (a dictation session with `dictation.commands` on). */
  readonly #commands: boolean
  /** Completed items with text, oldest first: what a "scratch that" takes back. */
  readonly #spoken: string[] = []
  #settings: Settings
  /** An update that waits for the open item to end. */
  #pending: Partial<Settings> | null = null
  #streaming: boolean
  /** Appended audio waiting to be processed, a slice per turn of the event loop, and the calls behind it. */
  readonly #input: InputQueue
  #resampler: Resampler
  /** Input frames given to the current resampler. */
  #resampled = 0
  /** Session samples (16 kHz) so far, with the last few hundred ms kept. */
  #recent: RecentAudio
  #detector: SessionTurnDetector | null = null
  /** The settings #detector was made with, to give it back. */
  #detectorOptions: TurnDetectorOptions | null = null
  /** Server VAD: samples short of a whole window. */
  #partialWindow = new Float32Array(0)
  #open: OpenItem | null = null
  /** Where the last item ended: the next one never starts before it. */
  #lastItemEnd = 0
  #previousItemId: string | null = null
  /** Items committed and not yet reported, in order. */
  #reporting: Promise<void> = Promise.resolve()
  readonly #inFlight = new Set<LiveItem>()
  /** Committed items until their last event, and the backlog they make. */
  readonly #committed = new CommittedItems()
  #lastActivity = Date.now()
  #idleTimer: NodeJS.Timeout | null = null
  /** No more events (closed, or after a fatal error). */
  #silent = false
  #closing: Promise<void> | null = null

  constructor(options: LiveSessionOptions, listener: LiveEventListener, deps: SessionDeps) {
    this.#deps = deps
    this.#listener = listener
    this.#inputRate = options.inputSampleRate
    this.#history = options.history ?? null
    this.#commands = options.commands === true && deps.config().dictation.commands
    this.#settings = {
      turnDetection: options.turnDetection,
      ...(options.language === undefined ? {} : { language: options.language }),
      ...(options.languages === undefined ? {} : { languages: options.languages }),
      ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
      ...(options.keywords === undefined ? {} : { keywords: options.keywords }),
    }
    this.#streaming = deps.engine.capabilities.streaming === true
    this.#resampler = createResampler(this.#inputRate, SAMPLE_RATE)
    this.#input = new InputQueue(
      this.#inputRate,
      (pcm16) => this.#process(pcm16),
      (error) => this.#fatal(asDictumError(error)),
    )
    this.#recent = new RecentAudio(WINDOW)
    this.#applyTurnDetection(options.turnDetection)
    this.#armIdle()
  }

  get engine(): { displayName: string; capabilities: Readonly<ReportedCapabilities> } {
    const { displayName, capabilities } = this.#deps.engine
    return { displayName, capabilities }
  }

  append(pcm16: Uint8Array): void {
    if (this.#closing) return
    this.#touch()
    const { maxFrameBytes } = this.#deps.config().realtime
    if (pcm16.length > maxFrameBytes) {
      this.#misuse(
        `an append of ${pcm16.length} bytes is more than realtime.maxFrameBytes (${maxFrameBytes}).`,
      )
      return
    }
    if (pcm16.length % 2 !== 0) {
      this.#misuse(`the audio has an odd number of bytes (${pcm16.length}): PCM16 takes 2 bytes a sample.`)
      return
    }
    if (pcm16.length === 0) return
    const { maxQueuedAudioSeconds } = this.#deps.config().realtime
    if (this.#input.pendingBytes + pcm16.length > maxQueuedAudioSeconds * this.#inputRate * 2) {
      this.#fatal(
        liveErrors.AUDIO_TOO_FAST(
          `more than ${maxQueuedAudioSeconds} s of audio wait to be processed (realtime.maxQueuedAudioSeconds); send audio at most a little faster than real time. The session is closed.`,
        ),
      )
      return
    }
    this.#input.audio(pcm16)
  }

  commit(): void {
    if (this.#closing) return
    this.#touch()
    this.#input.afterAudio(() => this.#commitNow())
  }

  /** Synchronous unless the turn detector has windows to answer first. */
  #commitNow(): void | Promise<void> {
    const flushed = this.#flushInput()
    if (flushed) return flushed.then(() => this.#commitFlushed())
    this.#commitFlushed()
  }

  #commitFlushed(): void {
    const open = this.#open
    if (!open || open.item.length === 0) {
      this.#misuse('the input audio buffer is empty: append audio before committing.', {
        reason: 'input_audio_buffer_commit_empty',
      })
      return
    }
    this.#detector?.cut()
    this.#endItem(this.#recent.end)
  }

  clear(): void {
    if (this.#closing) return
    this.#touch()
    this.#input.afterAudio(() => this.#clearNow())
  }

  #clearNow(): void {
    this.#partialWindow = new Float32Array(0)
    this.#detector?.cut()
    const open = this.#open
    this.#open = null
    if (open) {
      open.item.cancel()
      this.#lastItemEnd = this.#recent.end
    }
    this.#applyPending()
  }

  update(options: Partial<Settings>): void {
    if (this.#closing) return
    this.#touch()
    const threshold = options.turnDetection ? thresholdProblem(options.turnDetection.threshold) : null
    if (threshold) {
      this.#misuse(`turn_detection threshold ${threshold}.`, { param: 'turn_detection' })
      const { turnDetection: _refused, ...rest } = options
      options = rest
    }
    if (options.turnDetection && this.#deps.vadModel === null) {
      this.#misuse(
        'turn_detection server_vad needs the voice activity detector, and no usable VAD model is installed (run: dictum models pull silero-vad).',
        { param: 'turn_detection' },
      )
      const { turnDetection: _refused, ...rest } = options
      options = rest
    }
    this.#input.afterAudio(() => {
      this.#pending = { ...this.#pending, ...options }
      if (!this.#open) this.#applyPending()
    })
  }

  close(options: { cancel?: boolean } = {}): Promise<void> {
    this.#closing ??= this.#shutdown(options.cancel === true)
    return this.#closing
  }

  // ---- audio in

  /** A slice of appended PCM16, converted to 16 kHz float. */
  #process(pcm16: Uint8Array): void | Promise<void> {
    if (this.#silent) return
    const samples = pcmToMono(pcm16, { sampleFormat: 's16', channels: 1, blockAlign: 2 })
    this.#resampled += samples.length
    return this.#feed(this.#resampler.push(samples))
  }

  /** 16 kHz samples, in order. */
  #feed(samples: Float32Array): void | Promise<void> {
    if (samples.length === 0) return
    if (this.#detector) return this.#feedWindows(samples)
    // client commits: everything goes to the open item, cut at the longest item
    let at = 0
    while (at < samples.length) {
      this.#open ??= this.#newItem(this.#recent.end)
      const room = this.#maxItemSamples() - this.#open.item.length
      const part = samples.subarray(at, at + Math.max(1, room))
      this.#open.item.write(part)
      this.#recent.push(part)
      at += part.length
      if (this.#open.item.length >= this.#maxItemSamples()) this.#endItem(this.#recent.end)
    }
  }

  /**
   * Server VAD: whole windows go to the detector in batches (its thread answers each window's turn), then
   * to the items. A batch never crosses the point where an item reaches its longest (the detector is cut
   * there, before the next window), so each window's turn is the one it would get fed one by one.
   */
  async #feedWindows(samples: Float32Array): Promise<void> {
    let input = samples
    if (this.#partialWindow.length > 0) {
      input = new Float32Array(this.#partialWindow.length + samples.length)
      input.set(this.#partialWindow, 0)
      input.set(samples, this.#partialWindow.length)
    }
    const count = Math.floor(input.length / WINDOW)
    this.#partialWindow = input.slice(count * WINDOW)
    let at = 0
    while (at < count) {
      const detector = this.#detector
      if (!detector || this.#input.stopped) return
      this.#cutAtLongest()
      const n = this.#windowsBeforeLongest(count - at)
      const batch = input.subarray(at * WINDOW, (at + n) * WINDOW)
      const turns = await detector.accept(batch)
      if (this.#input.stopped || this.#detector !== detector) return
      for (let i = 0; i < n; i++)
        this.#applyWindow(batch.subarray(i * WINDOW, (i + 1) * WINDOW), turns[i] ?? null)
      at += n
    }
  }

  /** Speech going on past the longest item: it is committed here and goes on in a new item. */
  #cutAtLongest(): void {
    if (!this.#open || this.#open.item.length + WINDOW <= this.#maxItemSamples()) return
    this.#detector?.cut()
    this.#emit({ type: 'speech_stopped', itemId: this.#open.item.id, audioEndMs: toMs(this.#recent.end) })
    this.#endItem(this.#recent.end)
  }

  /**
   * How many of the next `left` windows can be fed before an item could reach its longest: the open one,
   * or one opened inside the batch (it starts with at most the recent audio it reaches back for).
   */
  #windowsBeforeLongest(left: number): number {
    const longest = this.#maxItemSamples()
    let room = Math.floor((longest - this.#recentCapacity()) / WINDOW)
    if (this.#open) room = Math.min(room, Math.floor((longest - this.#open.item.length) / WINDOW))
    return Math.max(1, Math.min(left, room))
  }

  #applyWindow(window: Float32Array, turn: TurnEvent | null): void {
    this.#recent.push(window)
    this.#open?.item.write(window)
    if (turn?.type === 'start' && !this.#open) {
      const padding = Math.round(((this.#settings.turnDetection?.prefixPaddingMs ?? 0) * SAMPLE_RATE) / 1000)
      const start = Math.max(turn.at - padding, this.#lastItemEnd, this.#recent.end - this.#recentCapacity())
      const open = this.#newItem(start)
      open.item.write(this.#recent.since(start))
      this.#open = open
      this.#emit({ type: 'speech_started', itemId: open.item.id, audioStartMs: toMs(start) })
    } else if (turn?.type === 'stop' && this.#open) {
      this.#emit({ type: 'speech_stopped', itemId: this.#open.item.id, audioEndMs: toMs(turn.at) })
      this.#endItem(this.#recent.end)
    }
  }

  /** Everything appended reaches the item: the resampler's tail and a window's remainder (a commit). */
  #flushInput(): void | Promise<void> {
    const tail = this.#resampler.finish(this.#resampled)
    this.#resampler = createResampler(this.#inputRate, SAMPLE_RATE)
    this.#resampled = 0
    const fed = this.#feed(tail)
    if (fed) return fed.then(() => this.#flushRest())
    this.#flushRest()
  }

  #flushRest(): void {
    const rest = this.#partialWindow
    this.#partialWindow = new Float32Array(0)
    if (rest.length === 0) return
    this.#recent.push(rest)
    this.#open?.item.write(rest)
    // the detector hears it too (its turn, if any, is not needed: the item ends here)
    this.#detector?.accept(rest).catch(() => {})
  }

  // ---- items

  #newItem(start: number): OpenItem {
    const { engine, dictionary } = this.#deps
    const { prompt, keywords, languages } = this.#settings
    const language = languages ? languageAmong(languages, engine) : this.#settings.language
    // the session's keywords join the dictionary's words for its items only; the dictionary is not changed
    const customWords = engineCustomWords(engine.capabilities, dictionary, requestWords(keywords ?? []))
    const triggers = dictionary.listReplacements().items.flatMap((rule) => rule.triggers)
    const open: OpenItem = {
      item: new LiveItem({
        id: `item_${randomUUID().replaceAll('-', '')}`,
        start,
        engine,
        stream: this.#streaming,
        request: {
          customWords,
          ...(language === undefined ? {} : { language }),
          ...(languages && languages.length > 1 ? { languages } : {}),
          ...(prompt === undefined ? {} : { prompt }),
        },
        onPartial: (text) => this.#partial(open, text),
        onStreamRefused: () => {
          this.#streaming = false
        },
        keepRecording: this.#keepsRecordings(),
      }),
      text: new ItemText(
        (text) => this.#edited(dictionary.applyReplacements(text)).text,
        Math.max(longestTriggerWords(triggers), this.#commands ? LONGEST_COMMAND_WORDS : 0),
      ),
      done: false,
    }
    return open
  }

  #partial(open: OpenItem, raw: string): void {
    if (open.done) return
    const { text, delta } = open.text.partial(raw)
    this.#emit({ type: 'partial', itemId: open.item.id, text })
    if (delta !== '') this.#emit({ type: 'delta', itemId: open.item.id, delta })
  }

  /** The open item's audio is complete: committed now, its transcript reported in item order. */
  #endItem(end: number): void {
    const open = this.#open as OpenItem
    this.#open = null
    this.#lastItemEnd = end
    const { item } = open
    this.#emit({ type: 'committed', itemId: item.id, previousItemId: this.#previousItemId })
    this.#previousItemId = item.id
    const { maxBacklogSeconds } = this.#deps.config().realtime
    const backlog = this.#committed.add(item.id, item.length, maxBacklogSeconds)
    this.#inFlight.add(item)
    // client-committed audio may be silence; VAD items hold speech by construction
    const check = this.#detector ? undefined : (this.#deps.hasSpeech ?? undefined)
    const result = item.end(check)
    result.catch(() => {})
    this.#reporting = this.#reporting
      .then(() => this.#report(open, result))
      .catch((error: unknown) =>
        this.#deps.logger.error({ error: (error as Error).message }, 'a live item could not be reported'),
      )
    if (backlog !== 'ok') {
      const waiting = `${this.#committed.waitingSeconds().toFixed(1)} s of committed audio wait for the engine`
      const detail =
        backlog === 'full'
          ? `${waiting}, more than realtime.maxBacklogSeconds (${maxBacklogSeconds}); the session is closed.`
          : `${waiting} (the session is closed past ${maxBacklogSeconds} s, realtime.maxBacklogSeconds): send audio no faster than real time.`
      const extra = { waitingSeconds: this.#committed.waitingSeconds(), maxBacklogSeconds }
      const error = liveErrors.SESSION_BACKLOG(detail, { extra })
      if (backlog === 'full') {
        this.#fatal(error)
        return
      }
      this.#emit({ type: 'error', error, fatal: false })
    }
    this.#applyPending()
  }

  async #report(open: OpenItem, pending: Promise<EngineTranscribeResult>): Promise<void> {
    const { item } = open
    let result: EngineTranscribeResult
    try {
      result = await pending
    } catch (error) {
      open.done = true
      this.#emit({ type: 'failed', itemId: item.id, error: asDictumError(error) })
      this.#committed.reported(item.id)
      return
    } finally {
      this.#committed.settled(item.id, this.#deps.config().realtime.maxBacklogSeconds)
      this.#inFlight.delete(item)
    }
    open.done = true
    const final = open.text.final(result.text)
    if (final.revised) {
      this.#deps.logger.debug(
        { itemId: item.id },
        'the final result revised words already sent as deltas: the transcript is the final',
      )
    }
    if (final.delta !== '') this.#emit({ type: 'delta', itemId: item.id, delta: final.delta })
    const raw = this.#deps.dictionary.applyReplacements(result.text.trim())
    const removes = this.#takeBack(this.#edited(raw).removesPrevious)
    if (final.transcript.trim() !== '') this.#spoken.push(item.id)
    if (this.#spoken.length > MAX_REMOVABLE) this.#spoken.shift()
    const historyId = await this.#record(item, raw, final.transcript)
    const offset = item.startSeconds
    const { engine } = this.#deps
    this.#emit({
      type: 'completed',
      itemId: item.id,
      transcript: final.transcript,
      tokens: resultTokens(result),
      rawText: result.text.trim(),
      revised: final.revised,
      startSeconds: offset,
      endSeconds: item.endSeconds,
      words: result.words
        ? result.words.map((w) => ({ ...w, start: w.start + offset, end: w.end + offset }))
        : null,
      engine: engine.id,
      provider: engine.displayName,
      historyId,
      removes,
    })
    this.#committed.reported(item.id)
  }

  /** The editing stage on an item's text, in a dictation session; the text as it is otherwise. */
  #edited(text: string): { text: string; removesPrevious: number } {
    return this.#commands ? applyDictationCommands(text) : { text, removesPrevious: 0 }
  }

  /** The ids of the last `count` items with text, latest first, now taken back. */
  #takeBack(count: number): string[] {
    const removed: string[] = []
    while (removed.length < count && this.#spoken.length > 0) removed.push(this.#spoken.pop() as string)
    return removed
  }

  /** Whether items keep their samples: the session records to history, which keeps audio. */
  #keepsRecordings(): boolean {
    const { enabled, keepAudio } = this.#deps.config().history
    return this.#history !== null && enabled && keepAudio
  }

  /**
   * The history entry's id, or null (history off, not asked for, empty text, or storing failed: logged),
   * with the item's recording when history keeps audio.
   */
  async #record(item: LiveItem, raw: string, transcript: string): Promise<string | null> {
    const wanted = this.#history
    const samples = item.takeRecording()
    if (!wanted || !this.#deps.config().history.enabled || this.#silent) return null
    if (raw.trim() === '' && transcript.trim() === '') return null
    try {
      const audio = samples ? await this.#encoded(samples) : null
      const entry = await this.#deps.history.record({
        rawText: raw,
        finalText: transcript,
        appName: wanted.appName,
        ...(wanted.windowTitle === undefined ? {} : { windowTitle: wanted.windowTitle }),
        wasAIProcessed: false,
        aiProcessingError: null,
        durationSeconds: Math.round((item.endSeconds - item.startSeconds) * 1000) / 1000,
        engine: this.#deps.engine.id,
        audio,
      })
      return entry?.id ?? null
    } catch (error) {
      this.#deps.logger.error(
        { error: (error as Error).message, code: (error as DictumError).code },
        'a live dictation could not be stored in history; the session goes on',
      )
      return null
    }
  }

  /** An item's samples as history keeps a recording: the encoder /v1/dictate uses; null when none is kept. */
  async #encoded(samples: Float32Array): Promise<Buffer | null> {
    const recording = startRecording(this.#deps.config().history)
    if (!recording) return null
    recording.write(samples)
    return finishRecording(recording, this.#deps.logger)
  }

  // ---- settings

  #applyPending(): void {
    const pending = this.#pending
    if (!pending || this.#open) return
    this.#pending = null
    // A new detector loads the Silero model (hundreds of ms on the loop): only when the settings change.
    if (
      pending.turnDetection !== undefined &&
      !sameVad(pending.turnDetection, this.#settings.turnDetection)
    ) {
      this.#applyTurnDetection(pending.turnDetection)
    }
    this.#settings = { ...this.#settings, ...pending }
  }

  #applyTurnDetection(turnDetection: ServerVad | null): void {
    this.#settings.turnDetection = turnDetection
    this.#partialWindow = new Float32Array(0)
    this.#releaseDetector()
    if (!turnDetection || this.#deps.vadModel === null) {
      this.#detector = null
      this.#recent = this.#resized(WINDOW)
      return
    }
    const config = this.#deps.config()
    this.#detectorOptions = {
      model: this.#deps.vadModel,
      threshold: turnDetection.threshold,
      silenceDurationMs: turnDetection.silenceDurationMs,
      minSpeechSeconds: config.vad.minSpeechSeconds,
      maxUtteranceSeconds: config.realtime.maxUtteranceSeconds,
      origin: this.#recent.end,
    }
    this.#detector = this.#deps.turnDetectors.acquire(this.#detectorOptions)
    this.#recent = this.#resized(this.#recentCapacity())
  }

  /** The detector goes back to the service's pool (its native memory is reused, not left to the GC). */
  #releaseDetector(): void {
    if (this.#detector && this.#detectorOptions)
      this.#deps.turnDetectors.release(this.#detector, this.#detectorOptions)
    this.#detector = null
    this.#detectorOptions = null
  }

  /** What an item may reach back for: the detector's lead-in and the prefix padding. */
  #recentCapacity(): number {
    const padding = this.#settings.turnDetection?.prefixPaddingMs ?? 0
    return (this.#detector?.leadIn ?? 0) + Math.round((padding * SAMPLE_RATE) / 1000) + 2 * WINDOW
  }

  /** A ring of the new size that goes on from the same position (its history starts afresh). */
  #resized(capacity: number): RecentAudio {
    return new RecentAudio(capacity, this.#recent.end)
  }

  /** The longest item in samples: realtime.maxUtteranceSeconds, and the engine's window for the fallback. */
  #maxItemSamples(): number {
    const configured = this.#deps.config().realtime.maxUtteranceSeconds
    const window = this.#deps.engine.capabilities.maxAudioSeconds
    const seconds = window === null ? configured : Math.min(configured, window)
    return Math.max(WINDOW, Math.floor(seconds * SAMPLE_RATE))
  }

  // ---- events, limits, closing

  #emit(event: LiveEvent): void {
    if (this.#silent) return
    try {
      this.#listener(event)
    } catch (error) {
      this.#deps.logger.error({ error: (error as Error).message }, 'a live session listener threw')
    }
  }

  #misuse(detail: string, extra?: Record<string, unknown>): void {
    this.#emit({
      type: 'error',
      error: errors.INVALID_REQUEST(detail, extra ? { extra } : undefined),
      fatal: false,
    })
  }

  /** Reports the error (each committed item failing with it first), then closes dropping what is in flight. */
  #fatal(error: DictumError): void {
    this.#failUnreported(error)
    this.#emit({ type: 'error', error, fatal: true })
    this.#silent = true
    void this.close({ cancel: true })
  }

  /** Every committed item still without its last event gets `failed` now, in item order (a close, a fatal error). */
  #failUnreported(error: DictumError): void {
    for (const itemId of this.#committed.unreported()) {
      this.#emit({ type: 'failed', itemId, error })
      this.#committed.reported(itemId)
    }
  }

  #touch(): void {
    this.#lastActivity = Date.now()
  }

  #armIdle(): void {
    const { idleTimeoutMs } = this.#deps.config().realtime
    const wait = Math.max(0, this.#lastActivity + idleTimeoutMs - Date.now())
    this.#idleTimer = setTimeout(() => {
      const idle = Date.now() - this.#lastActivity
      // Waiting for transcripts, or for the service to get through audio the client already sent (a busy
      // machine can hold the turn detector's thread for seconds), is the service's time, not the client's.
      const working = this.#inFlight.size > 0 || this.#input.busy
      if (idle >= idleTimeoutMs && !working) {
        this.#fatal(
          liveErrors.SESSION_IDLE_TIMEOUT(
            `no audio or event for ${idleTimeoutMs} ms (realtime.idleTimeoutMs); the session is closed.`,
          ),
        )
        return
      }
      if (working) this.#touch()
      this.#armIdle()
    }, wait)
    this.#idleTimer.unref()
  }

  async #shutdown(cancel: boolean): Promise<void> {
    if (this.#idleTimer) clearTimeout(this.#idleTimer)
    this.#idleTimer = null
    if (cancel) this.#input.stop()
    else await this.#input.drained()
    const open = this.#open
    if (cancel) {
      this.#failUnreported(
        liveErrors.SESSION_CLOSED(
          'the session ended before the item was transcribed (client gone, or dictum stopping).',
        ),
      )
      this.#silent = true
      this.#open = null
      open?.item.cancel()
      for (const item of this.#inFlight) item.cancel()
    } else {
      await this.#flushInput()
      if (this.#open && this.#open.item.length > 0) {
        if (this.#detector) {
          this.#emit({
            type: 'speech_stopped',
            itemId: this.#open.item.id,
            audioEndMs: toMs(this.#recent.end),
          })
        }
        this.#endItem(this.#recent.end)
      } else {
        this.#open?.item.cancel()
        this.#open = null
      }
    }
    await this.#reporting.catch(() => {})
    this.#silent = true
    this.#releaseDetector()
    this.#deps.engine.release()
    this.#deps.onClosed()
  }
}

function sameVad(a: ServerVad | null, b: ServerVad | null): boolean {
  if (a === null || b === null) return a === b
  return (
    a.threshold === b.threshold &&
    a.silenceDurationMs === b.silenceDurationMs &&
    a.prefixPaddingMs === b.prefixPaddingMs
  )
}

function toMs(samples: number): number {
  return Math.round((samples * 1000) / SAMPLE_RATE)
}
