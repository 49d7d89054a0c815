/**
 * Samples per `vosk_recognizer_accept_waveform` call (40 ms), for whole pieces and live utterances alike:
 * Vosk's endpointer may close an utterance only where a call ends, which moves word times (measured: up to
 * 0.42 s on jfk.wav between 40 ms and 500 ms calls), so a live utterance's final result equals the file
 * transcription only when both cut the audio at the same places.
 */
export const BLOCK_SAMPLES = 640
