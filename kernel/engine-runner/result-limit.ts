/**
 * The size cap on one piece's result. Speech is ~15 characters per second, so a result far larger than its
 * audio is an engine fault; unchecked, a 300 MB transcript crossed into the API process (500 and 1.3 GB RSS).
 * A host checks before it sends (so the big string never crosses IPC), the API process checks again on
 * arrival (a plugin could send on its own), and in-process engines are checked the same way.
 */
import { ENGINE_SAMPLE_RATE } from '../contracts/engine.ts'

/** Every result may hold this much, however short its audio. */
export const RESULT_MIN_CHARS = 64 * 1024
/** Beyond the minimum, per second of audio: ~100× what speech needs, room for words, segments and debug. */
export const RESULT_CHARS_PER_SECOND = 2048

/** The most a result for `sampleCount` samples may hold, in characters. */
export function resultLimit(sampleCount: number): number {
  return Math.max(RESULT_MIN_CHARS, Math.ceil((sampleCount / ENGINE_SAMPLE_RATE) * RESULT_CHARS_PER_SECOND))
}

/**
 * The result's size in characters: every string (keys too) counts its length, every other value 8 (an empty
 * string 1), binary data its bytes. Every value costs at least 1, so once the values still to visit would
 * pass `stopAbove` the walk stops: a huge or tangled result costs no more than the limit.
 */
export function resultSize(value: unknown, stopAbove: number): number {
  let size = 0
  const seen = new Set<object>()
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    if (size + stack.length > stopAbove) return size + stack.length
    const item = stack.pop()
    if (typeof item === 'string') size += Math.max(1, item.length)
    else if (item === null || typeof item !== 'object' || seen.has(item)) size += 8
    else if (ArrayBuffer.isView(item) || item instanceof ArrayBuffer) size += Math.max(1, item.byteLength)
    else {
      seen.add(item)
      size += 8
      const entries = Array.isArray(item) || item instanceof Set ? item.values() : entriesOf(item)
      for (const entry of entries) {
        stack.push(entry)
        if (size + stack.length > stopAbove) return size + stack.length
      }
    }
  }
  return size
}

/** An object's or a Map's keys and values, one after the other. */
function* entriesOf(item: object): Generator<unknown> {
  if (item instanceof Map) {
    for (const [key, entry] of item) yield* [key, entry]
    return
  }
  for (const key in item) {
    if (!Object.hasOwn(item, key)) continue
    yield key
    yield (item as Record<string, unknown>)[key]
  }
}

/** Why a result is too large (a message naming the cap), or null when it fits. */
export function oversizeReason(result: unknown, sampleCount: number): string | null {
  const limit = resultLimit(sampleCount)
  if (resultSize(result, limit) <= limit) return null
  const seconds = (sampleCount / ENGINE_SAMPLE_RATE).toFixed(1)
  return `the result is larger than the limit of ${limit} characters for ${seconds} s of audio`
}
