/**
 * A dictation's recording on its way to its history entry (`history.keepAudio`). Every way of dictating keeps
 * it the same way: /v1/dictate writes the samples as they are decoded, a live utterance writes its item's
 * samples when the item is complete; both finish it into the FLAC that `HistoryService.record` stores.
 */
import { RecordingEncoder } from '../audio/recording-encoder.ts'

interface Logger {
  warn(obj: object, msg: string): void
}

/** An encoder when history keeps audio, else null. */
export function startRecording(history: { enabled: boolean; keepAudio: boolean }): RecordingEncoder | null {
  return history.enabled && history.keepAudio ? new RecordingEncoder() : null
}

/** The recording's FLAC; null (logged) when encoding failed: the dictation is kept without its audio. */
export async function finishRecording(recording: RecordingEncoder, logger: Logger): Promise<Buffer | null> {
  try {
    return await recording.finish()
  } catch (err) {
    logger.warn({ error: (err as Error).message }, 'the recording could not be kept')
    return null
  }
}
