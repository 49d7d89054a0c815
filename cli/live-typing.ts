/**
 * `dictum dictate --live --type`: the text typed into the focused window while the user speaks. Each delta
 * is typed as it arrives; when an utterance's final revises words already typed (`revised`), or a
 * "scratch that" takes an utterance back, the window is corrected with BackSpace and the new text, so it
 * ends with exactly the dictation's final text.
 *
 * The typist keeps what it has typed and what the window should hold (the utterances in order: finished
 * ones' transcripts, the one being spoken's deltas, joined by spaces). Each turn it erases what differs
 * after the common start and types the rest; typing runs one call at a time, and a turn that finds
 * nothing to do is free, so deltas arriving while the tool runs are typed together.
 */
import { type DesktopTool, pressBackspaces, runTool } from './desktop-tools.ts'
import type { LiveView } from './live-link.ts'

interface Utterance {
  id: string
  text: string
  done: boolean
}

export class WindowTyping implements LiveView {
  readonly #tool: DesktopTool
  readonly #env: NodeJS.ProcessEnv
  readonly #utterances: Utterance[] = []
  /** What was typed into the window, as code points. */
  #typed: string[] = []
  #queue: Promise<void> = Promise.resolve()
  #failure: Error | null = null

  readonly #onCorrection: (erased: number) => void

  /** `onCorrection`: told how many characters each correction took back (a status line). */
  constructor(tool: DesktopTool, env: NodeJS.ProcessEnv, onCorrection: (erased: number) => void = () => {}) {
    this.#tool = tool
    this.#env = env
    this.#onCorrection = onCorrection
  }

  delta(itemId: string, text: string): void {
    const utterance = this.#utterance(itemId)
    utterance.text += text
    this.#sync()
  }

  completed(itemId: string, transcript: string, removes: readonly string[] = []): void {
    const utterance = this.#utterance(itemId)
    utterance.text = transcript.trim()
    utterance.done = true
    for (const id of removes) {
      const index = this.#utterances.findIndex((u) => u.id === id)
      if (index >= 0) this.#utterances.splice(index, 1)
    }
    this.#sync()
  }

  failed(itemId: string): void {
    // What was typed of a lost utterance is taken back: the window holds only final text.
    const index = this.#utterances.findIndex((u) => u.id === itemId)
    if (index >= 0) this.#utterances.splice(index, 1)
    this.#sync()
  }

  /** What the window should hold now. */
  get wanted(): string {
    return this.#utterances
      .map((u) => u.text.trim())
      .filter((text) => text !== '')
      .join(' ')
  }

  /** Resolves once everything is typed; rejects with the typing tool's failure. */
  async idle(): Promise<void> {
    await this.#queue
    if (this.#failure) throw this.#failure
  }

  #utterance(id: string): Utterance {
    let utterance = this.#utterances.find((u) => u.id === id)
    if (!utterance) {
      utterance = { id, text: '', done: false }
      this.#utterances.push(utterance)
    }
    return utterance
  }

  #sync(): void {
    this.#queue = this.#queue.then(() => this.#correct())
  }

  async #correct(): Promise<void> {
    if (this.#failure) return
    const wanted = Array.from(this.wanted)
    let same = 0
    while (same < wanted.length && same < this.#typed.length && wanted[same] === this.#typed[same]) same++
    const erase = this.#typed.length - same
    const add = wanted.slice(same).join('')
    if (erase === 0 && add === '') return
    try {
      if (erase > 0) {
        await pressBackspaces(this.#tool, erase, this.#env)
        this.#typed = this.#typed.slice(0, same)
        this.#onCorrection(erase)
      }
      if (add !== '') {
        await runTool(this.#tool, add, this.#env)
        this.#typed = wanted
      }
    } catch (error) {
      this.#failure = error as Error
    }
  }
}
