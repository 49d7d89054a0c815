/**
 * Long audio fans out (issue 15 item 3): the worker that takes a job whose audio is longer than
 * `jobs.redis.fanOutSeconds` cuts it at pauses exactly as the transcription pipeline does
 * (TranscriptionService.planPieces: the same VAD, the same piece limit), groups the pieces into parts of
 * about `jobs.redis.partSeconds`, and queues one `part` job per group as BullMQ children of the job. Any
 * worker runs a part (each decodes the shared file and transcribes only its pieces). When the last part is
 * done BullMQ hands the job back to a worker, which joins every piece's result in order with the
 * pipeline's own join (absolute times, dictionary replacements), so the transcript is the one a single
 * process gives for the same file.
 */
import type { PieceSpan } from '../../transcription/service.ts'

const SAMPLE_RATE = 16000

/** Consecutive pieces in groups of at least `partSeconds` of audio each (the last may be shorter). */
export function groupPieces(pieces: readonly PieceSpan[], partSeconds: number): PieceSpan[][] {
  const limit = partSeconds * SAMPLE_RATE
  const groups: PieceSpan[][] = []
  let group: PieceSpan[] = []
  let samples = 0
  for (const piece of pieces) {
    group.push(piece)
    samples += piece.length
    if (samples >= limit) {
      groups.push(group)
      group = []
      samples = 0
    }
  }
  if (group.length > 0) groups.push(group)
  return groups
}
