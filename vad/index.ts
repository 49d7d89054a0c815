export { OnnxFileError, type OnnxFileInfo, readOnnxFile } from './onnx-file.ts'
export {
  knownVadDigests,
  resolveVadModel,
  VAD_MODEL_IDS,
  type VadModelLocation,
  verifyVadModel,
} from './vad-model.ts'
export {
  maxSegmentSecondsFor,
  type OpenVadOptions,
  type SegmentOptions,
  type SpeechPiece,
  type VadConfig,
  VadSegmenter,
} from './vad-segmenter.ts'
