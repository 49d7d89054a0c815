/**
 * The deltas of a live item against its final transcript. With an engine whose partials come from the pass
 * that gives its final, they concatenate to it exactly. pocketsphinx's partials come from its live pass
 * (engines/pocketsphinx/stream.ts): its final, the file transcription, can revise a word already sent, and
 * then the last delta carries the final's words after those the sent words align with (live/deltas.ts):
 * the deltas end as the transcript does.
 */
import type { Test } from 'tap'

const words = (text: string) => text.trim().split(/\s+/u).filter(Boolean)

export function checkDeltas(t: Test, deltas: string, transcript: string, name: string): void {
  if (deltas === transcript) {
    t.equal(deltas, transcript, `${name}: the deltas concatenate to the transcript`)
    return
  }
  t.comment(`${name}: the final pass revised sent words: deltas "${deltas}", final "${transcript}"`)
  t.equal(
    words(deltas).at(-1),
    words(transcript).at(-1),
    `${name}: revised by the final pass, the deltas end as it does`,
  )
}
