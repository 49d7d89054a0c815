/**
 * Append-only text of a transcript that grows piece by piece: each piece's words are joined as the pipeline
 * joins them (join.ts: trimmed, one space between), the replacement rules are applied to the whole, and only
 * the part no later piece can change is handed out (a multi-word trigger may still match across the end).
 * The deltas concatenate to the final text: `finish` hands out the rest.
 */
import type { Settled } from '../dictionary/replace.ts'

export class TextDeltas {
  readonly #replace: (raw: string) => Settled
  #raw = ''
  #sent = ''

  constructor(replace: (raw: string) => Settled) {
    this.#replace = replace
  }

  /** The engine's raw text of the next piece; returns the new settled text ('' when none). */
  add(rawPiece: string): string {
    const words = rawPiece.trim()
    if (words === '') return ''
    this.#raw = this.#raw === '' ? words : `${this.#raw} ${words}`
    const { text, settled } = this.#replace(this.#raw)
    return this.#advance(text.slice(0, settled))
  }

  /**
   * The rest up to the final text (the transcript's `text`). Null when the final text does not continue
   * what was sent: it was not built from the same pieces and rules (a dictionary edit mid-transcription).
   */
  finish(finalText: string): string | null {
    if (!finalText.startsWith(this.#sent)) return null
    return this.#advance(finalText)
  }

  #advance(target: string): string {
    if (target.length <= this.#sent.length || !target.startsWith(this.#sent)) return ''
    const delta = target.slice(this.#sent.length)
    this.#sent = target
    return delta
  }
}
