export { AudioDecoder } from './audio-decoder.ts'
export { resampledLength } from './resampler.ts'
export type { AudioDecoderOptions, AudioSource, FfmpegLocation, FfmpegSource } from './types.ts'
export { TARGET_SAMPLE_RATE } from './types.ts'
