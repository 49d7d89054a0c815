/**
 * Live dictation: the seam between the live session core (live/session.ts, live/service.ts) and the ways a
 * client reaches it (the OpenAI Realtime WebSocket `/v1/realtime`, the Wyoming server, `stream=true` on
 * `/v1/audio/transcriptions`, `dictum dictate --live`). Protocol adapters translate their wire events to
 * the calls below and the {@link LiveEvent}s back to their wire events; they never touch engines.
 *
 * An utterance is an *item* (OpenAI's conversation item): with server VAD an item starts when speech starts
 * and is committed after `silenceDurationMs` of silence; without turn detection the client's `commit()` ends
 * it. Each item gets append-only `delta`s whose concatenation is exactly its `completed` transcript, and,
 * for clients that want the engine's revising guess, `partial`s with the whole current hypothesis.
 */

import type { DictumError } from '../errors/catalogue.ts'
import type { TranscriptToken, TranscriptWord } from '../kernel/contracts/engine.ts'
import type { ReportedCapabilities } from '../kernel/registry.ts'

/** Server-side turn detection (OpenAI `turn_detection: { type: 'server_vad', ... }`), Silero VAD. */
export interface ServerVad {
  type: 'server_vad'
  /** Speech probability above which a window is speech, 0..1 (OpenAI default 0.5). */
  threshold: number
  /** Silence that ends an utterance, ms (OpenAI default 500). */
  silenceDurationMs: number
  /** Audio kept before the detected start of speech and given to the engine with it, ms (OpenAI default 300). */
  prefixPaddingMs: number
}

export interface LiveSessionOptions {
  /** Engine id (or OpenAI model name mapped by the caller); absent: the selected engine. */
  engineId?: string
  /** With `engineId`: this installed catalog model instead of the one the engine's options name. */
  model?: string
  language?: string
  /**
   * OpenAI's `languages` (never with `language`): the engine must transcribe one of them (checked at open);
   * its hint is the first it transcribes, as for files (transcription/service.ts `languageAmong`).
   */
  languages?: string[]
  prompt?: string
  /**
   * Words or phrases for this session only (OpenAI's `keywords`), added to the dictionary's custom words
   * when the engine has the `customWords` capability (checked by the caller: routes/openai/request-fields.ts).
   */
  keywords?: string[]
  /** null: the client commits each utterance (OpenAI `turn_detection: null`). */
  turnDetection: ServerVad | null
  /** Sample rate of the PCM the client appends: 16000 or 24000 (resampled to 16 kHz inside). */
  inputSampleRate: 16000 | 24000
  /** Record each completed item as a dictation in history (when `history.enabled`), with this app name. */
  history?: { appName: string; windowTitle?: string } | null
  /**
   * A dictation session: each item goes through the editing stage (text/commands.ts: spoken punctuation,
   * "scratch that"…) when `dictation.commands` is on. Transcription sessions leave it off.
   */
  commands?: boolean
}

/** What a session reports, in order. `itemId`s are unique per service (`item_` + random). */
export type LiveEvent =
  /** Server VAD heard speech start; `audioStartMs` counts from the session's first appended sample. */
  | { type: 'speech_started'; itemId: string; audioStartMs: number }
  | { type: 'speech_stopped'; itemId: string; audioEndMs: number }
  /** The item's audio is complete (VAD end of speech, or the client's commit); its transcript follows. */
  | { type: 'committed'; itemId: string; previousItemId: string | null }
  /** Append-only text: the deltas of an item concatenate to its `completed` transcript. */
  | { type: 'delta'; itemId: string; delta: string }
  /** The engine's whole current hypothesis (replacement rules applied); may revise earlier words. */
  | { type: 'partial'; itemId: string; text: string }
  | {
      type: 'completed'
      itemId: string
      /** The final text, replacement rules applied. */
      transcript: string
      /**
       * The engine's tokens with log-probabilities (transcription/logprobs.ts), spelling `rawText`; null
       * when the engine gave no certainty.
       */
      tokens: TranscriptToken[] | null
      /** The engine's final text before replacements. */
      rawText: string
      /**
       * True when the final revised words already sent as deltas (engines whose partials come from a quicker
       * pass than their final, e.g. pocketsphinx): the deltas then do not concatenate to `transcript`.
       */
      revised: boolean
      /** Seconds from the session's first appended sample. */
      startSeconds: number
      endSeconds: number
      /** Words with absolute times (session seconds), where the engine gives them. */
      words: TranscriptWord[] | null
      engine: string
      provider: string
      /** The history entry's id when it was recorded, else null. */
      historyId: string | null
      /**
       * Earlier items this one takes back, latest first (a dictation session's "scratch that" with nothing
       * before it in the item): a client removes their text. Empty otherwise.
       */
      removes: string[]
    }
  /** The item's transcription failed (engine error, crash); the session goes on with the next item. */
  | { type: 'failed'; itemId: string; error: DictumError }
  /**
   * Misuse the session survives (`fatal: false`: an odd byte count, an over-long append, a commit with
   * nothing to commit; the offending call is ignored), or an end (`fatal: true`: idle timeout, backlog
   * full, engine gone; the session is closed after this event and reports nothing more).
   */
  | { type: 'error'; error: DictumError; fatal: boolean }

export type LiveEventListener = (event: LiveEvent) => void

/** One live session: audio in, {@link LiveEvent}s out. Calls are accepted in any order; misuse is an error event. */
export interface LiveSession {
  readonly id: string
  /**
   * Appends PCM16 little-endian mono at the session's input rate (a Buffer or bytes as they came off the
   * wire). Odd byte counts and over-long frames are refused with an `error` event (`realtime.maxFrameBytes`).
   */
  append(pcm16: Uint8Array): void
  /**
   * Ends the current item now (OpenAI `input_audio_buffer.commit`): without turn detection this is how an
   * item ends; with server VAD it forces the end of speech. An empty buffer gives an `error` event
   * (OpenAI's `input_audio_buffer_commit_empty`).
   */
  commit(): void
  /** Drops audio not yet committed (OpenAI `input_audio_buffer.clear`). */
  clear(): void
  /** The session's engine: its name and what it can do (e.g. whether `keywords` reach it: `customWords`). */
  readonly engine: { readonly displayName: string; readonly capabilities: Readonly<ReportedCapabilities> }
  /** Changes turn detection, language(s), prompt, keywords; applies from the next item (languages unchecked). */
  update(
    options: Partial<
      Pick<LiveSessionOptions, 'turnDetection' | 'language' | 'languages' | 'prompt' | 'keywords'>
    >,
  ): void
  /** Completes (or cancels, with `{ cancel: true }`) the open item and releases the engine. Safe to call twice. */
  close(options?: { cancel?: boolean }): Promise<void>
}

export interface LiveService {
  /**
   * Opens a session (resolves once the engine is loaded). Rejects with TOO_MANY_SESSIONS past
   * `realtime.maxSessions`, or the engine's catalogue error.
   */
  open(options: LiveSessionOptions, listener: LiveEventListener): Promise<LiveSession>
  /** Sessions open now. */
  readonly openSessions: number
  /**
   * Loads what a first session with server VAD `turnDetection` would wait for (the VAD model, the
   * turn-detection thread and a detector), so that it does not: the warm-up after listening.
   */
  warmUp(turnDetection: ServerVad): Promise<void>
}
