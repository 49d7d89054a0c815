/**
 * One live dictation session for `dictum dictate --live`, wherever it runs: over a running service's
 * realtime WebSocket (`/v1/realtime`, the OpenAI Realtime transcription events), or in this process on the
 * app's live sessions. Both report the same few things to the terminal view.
 */
import WebSocket from 'ws'
import type { DictumApp } from '../http/app.ts'
import type { LiveSession } from '../live/types.ts'
import { CliError } from './cli-error.ts'
import { EXIT } from './io.ts'
import type { ServerClient } from './server-client.ts'

/** What the terminal shows. */
export interface LiveView {
  /** Append-only text of the item being spoken. */
  delta(itemId: string, text: string): void
  /**
   * The item's final text (replacements and editing by voice applied), and the earlier items its
   * "scratch that" takes back.
   */
  completed(itemId: string, transcript: string, removes: readonly string[]): void
  failed(itemId: string, message: string): void
}

export interface LiveLinkOptions {
  /** Pause that ends an utterance, ms. */
  silenceMs: number
  appName: string
  windowTitle?: string | undefined
}

export interface LiveLink {
  /** PCM16 little-endian mono at 16 kHz. */
  append(pcm16: Uint8Array): void
  /** Ends the last utterance and resolves once every item has its final text; then the session is closed. */
  finish(): Promise<void>
  /** Rejects when the session ends on an error (service gone, engine unavailable, limit). */
  readonly failed: Promise<never>
  /** Drops everything (Ctrl-C twice). */
  abort(): void
}

/**
 * The items a link waits for before `finish` resolves, and the session's failure: an item is open from its
 * commit until its final text or its failure.
 */
class OpenItems {
  readonly #open = new Set<string>()
  /** A commit was sent and its answer (`committed`, or nothing to commit) has not come yet. */
  #awaitingCommit = false
  #settle: (() => void) | null = null
  #reject: (error: Error) => void = () => {}
  readonly failed = new Promise<never>((_, reject) => {
    this.#reject = reject
  })

  constructor() {
    this.failed.catch(() => {})
  }

  /** Items the server's VAD ended: a speech_stopped came before their commit. */
  readonly #endedBySpeech = new Set<string>()

  /** The server's VAD ended this item (its commit follows). */
  speechStopped(itemId: string): void {
    this.#endedBySpeech.add(itemId)
  }

  committed(itemId: string): void {
    this.#open.add(itemId)
    // The answer to finish's commit is the item that commit ends, which the VAD did not end: no speech_stopped
    // came before it. On a busy machine the service can still be catching up with audio sent earlier when
    // finish commits, and the VAD's commit of an earlier utterance then arrives first: taken for the answer,
    // it ended the wait before the last utterance was committed, and that utterance was lost.
    if (!this.#endedBySpeech.delete(itemId)) this.#awaitingCommit = false
  }

  /** The commit `finish` sent had nothing to commit (the server's VAD had committed everything). */
  nothingCommitted(): void {
    this.#awaitingCommit = false
    this.check()
  }

  ended(itemId: string): void {
    this.#open.delete(itemId)
    this.check()
  }

  fail(error: Error): void {
    this.#reject(error)
  }

  /** `finish` was called. */
  get finishing(): boolean {
    return this.#settle !== null
  }

  /**
   * From now on, resolves once no item is open (checked at each item's end and at {@link check}); with
   * `commitSent`, not before the commit's answer came (an item ending meanwhile does not end the wait).
   */
  finish(commitSent: boolean): Promise<void> {
    this.#awaitingCommit = commitSent
    const settled = new Promise<void>((resolve) => {
      this.#settle = resolve
    })
    return Promise.race([settled, this.failed])
  }

  check(): void {
    if (this.#open.size === 0 && !this.#awaitingCommit) this.#settle?.()
  }
}

const TURN_DETECTION = (silenceMs: number) => ({
  type: 'server_vad' as const,
  threshold: 0.5,
  prefix_padding_ms: 300,
  silence_duration_ms: silenceMs,
})

/** A session in this process (no service running, or --local). */
export async function inProcessLink(
  app: DictumApp,
  options: LiveLinkOptions,
  view: LiveView,
): Promise<LiveLink> {
  const items = new OpenItems()
  const session: LiveSession = await app.dictum.live.open(
    {
      turnDetection: {
        type: 'server_vad',
        threshold: 0.5,
        prefixPaddingMs: 300,
        silenceDurationMs: options.silenceMs,
      },
      inputSampleRate: 16000,
      history: {
        appName: options.appName,
        ...(options.windowTitle !== undefined ? { windowTitle: options.windowTitle } : {}),
      },
      commands: true,
    },
    (event) => {
      if (event.type === 'committed') items.committed(event.itemId)
      else if (event.type === 'delta') view.delta(event.itemId, event.delta)
      else if (event.type === 'completed') {
        view.completed(event.itemId, event.transcript, event.removes)
        items.ended(event.itemId)
      } else if (event.type === 'failed') {
        view.failed(event.itemId, event.error.message)
        items.ended(event.itemId)
      } else if (event.type === 'error' && event.fatal) items.fail(new CliError(event.error.message))
    },
  )
  return {
    append: (pcm16) => session.append(pcm16),
    async finish() {
      const done = items.finish(false)
      // close() completes the item still open; its events arrive before close resolves.
      await session.close()
      items.check()
      await done
    },
    failed: items.failed,
    abort: () => void session.close({ cancel: true }),
  }
}

interface ServerEvent {
  type: string
  item_id?: string
  delta?: string
  transcript?: string
  removed_item_ids?: string[]
  error?: { message?: string; code?: string | null }
}

/** A session on a running service, over its realtime WebSocket. */
export async function realtimeLink(
  server: ServerClient,
  options: LiveLinkOptions,
  view: LiveView,
): Promise<LiveLink> {
  const url = new URL('/v1/realtime', server.baseUrl.replace(/^http/, 'ws'))
  url.searchParams.set('intent', 'transcription')
  url.searchParams.set('app', options.appName)
  url.searchParams.set('dictation', 'true')
  const socket = new WebSocket(url, { headers: server.authorizationHeaders() })
  const items = new OpenItems()
  socket.on('message', (data, isBinary) => {
    if (isBinary) return
    let event: ServerEvent
    try {
      event = JSON.parse(data.toString()) as ServerEvent
    } catch {
      return
    }
    const item = event.item_id ?? ''
    if (event.type === 'input_audio_buffer.speech_stopped') items.speechStopped(item)
    else if (event.type === 'input_audio_buffer.committed') items.committed(item)
    else if (event.type === 'conversation.item.input_audio_transcription.delta')
      view.delta(item, event.delta ?? '')
    else if (event.type === 'conversation.item.input_audio_transcription.completed') {
      view.completed(item, event.transcript ?? '', event.removed_item_ids ?? [])
      items.ended(item)
    } else if (event.type === 'conversation.item.input_audio_transcription.failed') {
      view.failed(item, event.error?.message ?? 'transcription failed')
      items.ended(item)
    } else if (event.type === 'error') {
      // Committing when the server's VAD already committed everything is not a failure of the dictation.
      if (event.error?.code === 'input_audio_buffer_commit_empty' && items.finishing) items.nothingCommitted()
      else items.fail(new CliError(`the dictum service: ${event.error?.message ?? 'error'}`))
    }
  })
  socket.on('close', (code, reason) => {
    if (code !== 1000 || !items.finishing)
      items.fail(
        new CliError(
          `the dictum service closed the live session (${code}${reason.length > 0 ? `: ${reason.toString()}` : ''}).`,
          EXIT.unavailable,
        ),
      )
  })
  await new Promise<void>((resolve, fail) => {
    socket.once('open', () => resolve())
    socket.once('error', (err) =>
      fail(
        new CliError(`the dictum service's live session did not open (${err.message}).`, EXIT.unavailable),
      ),
    )
    socket.once('unexpected-response', (_request, response) =>
      fail(
        new CliError(
          `the dictum service refused the live session (HTTP ${response.statusCode}).`,
          EXIT.unavailable,
        ),
      ),
    )
  })
  socket.on('error', (err) =>
    items.fail(new CliError(`the live session failed: ${err.message}`, EXIT.unavailable)),
  )
  send(socket, {
    type: 'session.update',
    session: {
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 16000 },
          turn_detection: TURN_DETECTION(options.silenceMs),
        },
      },
    },
  })
  let appended = false
  return {
    append(pcm16) {
      appended = true
      send(socket, { type: 'input_audio_buffer.append', audio: Buffer.from(pcm16).toString('base64') })
    },
    async finish() {
      const done = items.finish(appended)
      if (appended) send(socket, { type: 'input_audio_buffer.commit' })
      else items.check()
      try {
        await done
      } finally {
        socket.close(1000)
      }
    },
    failed: items.failed,
    abort: () => socket.terminate(),
  }
}

function send(socket: WebSocket, event: Record<string, unknown>): void {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(event))
}
