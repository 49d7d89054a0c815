/**
 * The body worker: parses large JSON bodies (parse.ts) in a thread of its own so the API's event loop
 * keeps answering while 25 MB is decoded, scanned and parsed (~100–300 ms on the 2-core test machine).
 * Decoded base64 comes back as transferred memory, never copied.
 */
import { parentPort } from 'node:worker_threads'
import { lowerThisThreadPriority } from '../../lib/thread-priority.ts'
import { type ParseRequest, parseBody } from './parse.ts'

// Parsing megabytes is background work: the API's event loop comes first for a core (lib/thread-priority.ts).
lowerThisThreadPriority()

interface WorkerRequest extends ParseRequest {
  id: number
  bytes: Uint8Array
}

parentPort?.on('message', (message: WorkerRequest) => {
  const { parsed, decoded } = parseBody(message.bytes, message)
  const transfer = Object.values(decoded).flatMap((bytes) => (bytes ? [bytes.buffer as ArrayBuffer] : []))
  parentPort?.postMessage({ id: message.id, parsed, decoded }, transfer)
})
