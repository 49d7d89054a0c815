/**
 * FLAC for dictum's kept recordings (16 kHz mono, 16-bit), encoded in process: ffmpeg started once per
 * dictation cost ~0.11 s of CPU (a Debian ffmpeg loads 215 shared libraries), a tenth of what decoding a
 * short dictation costs, and a machine without ffmpeg kept no recordings at all.
 *
 * What it writes (the FLAC format, RFC 9639): `fLaC`, one STREAMINFO block (the sample count, the smallest
 * and largest frame and the MD5 of the samples, filled in at the end), then frames of BLOCK_SIZE samples
 * (the last one shorter). Each frame has one subframe: CONSTANT for a block of one value (digital silence),
 * else FLAC's fixed predictor of the order (0–4) with the least residual, its residual Rice-coded in 2^p
 * partitions (the cheapest p up to MAX_PARTITION_ORDER, each partition's parameter from its mean), or
 * VERBATIM when that would be larger. No LPC: speech comes out ~5–10 % larger than ffmpeg's, which is
 * nothing beside the cost of starting it.
 */
import { createHash, type Hash } from 'node:crypto'
import { int16Bytes } from './pcm-convert.ts'
import { TARGET_SAMPLE_RATE } from './types.ts'

const BITS_PER_SAMPLE = 16
const BLOCK_SIZE = 4096
const MAX_PARTITION_ORDER = 6
/** Rice parameters have 4 bits; 15 is the escape code, never used here. */
const MAX_RICE_PARAMETER = 14

/** Writes bits most significant first into a growing byte array. */
class BitWriter {
  #bytes = new Uint8Array(BLOCK_SIZE * 2 + 64)
  #length = 0
  #acc = 0
  #accBits = 0

  /** Writes the `bits` (0–24) low bits of `value`. */
  write(value: number, bits: number): void {
    if (bits === 0) return
    this.#acc = (this.#acc << bits) | (value & ((1 << bits) - 1))
    this.#accBits += bits
    while (this.#accBits >= 8) {
      this.#accBits -= 8
      this.#push((this.#acc >>> this.#accBits) & 0xff)
    }
    this.#acc &= (1 << this.#accBits) - 1
  }

  /** Writes up to 32 bits. */
  writeWide(value: number, bits: number): void {
    if (bits > 24) {
      this.write(Math.floor(value / 2 ** 24), bits - 24)
      this.write(value % 2 ** 24, 24)
    } else this.write(value, bits)
  }

  /** `count` zero bits and a one: a unary number. */
  unary(count: number): void {
    let left = count
    while (left > 23) {
      this.write(0, 23)
      left -= 23
    }
    this.write(1, left + 1)
  }

  /** Pads with zero bits to a byte boundary. */
  align(): void {
    if (this.#accBits > 0) this.write(0, 8 - this.#accBits)
  }

  get byteLength(): number {
    return this.#length
  }

  /** The bytes written so far (call after `align`). */
  bytes(): Uint8Array {
    return this.#bytes.subarray(0, this.#length)
  }

  #push(byte: number): void {
    if (this.#length === this.#bytes.length) {
      const grown = new Uint8Array(this.#bytes.length * 2)
      grown.set(this.#bytes)
      this.#bytes = grown
    }
    this.#bytes[this.#length++] = byte
  }
}

const CRC8 = crcTable(8, 0x07)
const CRC16 = crcTable(16, 0x8005)

function crcTable(width: 8 | 16, polynomial: number): Uint16Array {
  const table = new Uint16Array(256)
  const top = 1 << (width - 1)
  const mask = (1 << width) - 1
  for (let i = 0; i < 256; i++) {
    let crc = i << (width - 8)
    for (let bit = 0; bit < 8; bit++) crc = crc & top ? ((crc << 1) ^ polynomial) & mask : (crc << 1) & mask
    table[i] = crc
  }
  return table
}

function crc8(bytes: Uint8Array): number {
  let crc = 0
  for (const byte of bytes) crc = CRC8[crc ^ byte] as number
  return crc
}

function crc16(bytes: Uint8Array): number {
  let crc = 0
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ (CRC16[(crc >> 8) ^ byte] as number)
  return crc
}

/** A frame number in FLAC's UTF-8-like code. */
function writeFrameNumber(out: BitWriter, n: number): void {
  if (n < 0x80) {
    out.write(n, 8)
    return
  }
  let continuation = 1
  while (n >= 2 ** (5 * continuation + 6)) continuation++
  const lead = (0xff00 >> (continuation + 1)) & 0xff
  out.write(lead | Math.floor(n / 2 ** (6 * continuation)), 8)
  for (let i = continuation - 1; i >= 0; i--) out.write(0x80 | (Math.floor(n / 2 ** (6 * i)) & 0x3f), 8)
}

/** The residual of FLAC's fixed predictor of `order` (the first `order` samples are its warm-up). */
function fixedResidual(x: Int16Array, order: number, out: Int32Array): void {
  for (let i = order; i < x.length; i++) {
    const a = x[i] as number
    const b = x[i - 1] as number
    const c = x[i - 2] as number
    const d = x[i - 3] as number
    const e = x[i - 4] as number
    if (order === 0) out[i - order] = a
    else if (order === 1) out[i - order] = a - b
    else if (order === 2) out[i - order] = a - 2 * b + c
    else if (order === 3) out[i - order] = a - 3 * b + 3 * c - d
    else out[i - order] = a - 4 * b + 6 * c - 4 * d + e
  }
}

/** A Rice parameter for `count` zigzagged values whose sum is `sum`: about log2 of their mean. */
function riceParameter(sum: number, count: number): number {
  if (count === 0 || sum === 0) return 0
  const mean = sum / count
  return Math.min(MAX_RICE_PARAMETER, Math.max(0, Math.floor(Math.log2(mean))))
}

interface ResidualPlan {
  order: number
  parameters: number[]
  bits: number
}

/** Picks the partition order and the parameters that code `u` (zigzagged residual) in the fewest bits. */
function planResidual(
  u: Uint32Array,
  count: number,
  blockSize: number,
  predictorOrder: number,
): ResidualPlan {
  let best: ResidualPlan | null = null
  for (let p = 0; p <= MAX_PARTITION_ORDER; p++) {
    const size = blockSize >> p
    if (blockSize % (1 << p) !== 0 || size <= predictorOrder) break
    const parameters: number[] = []
    let bits = 0
    let start = 0
    for (let part = 0; part < 1 << p; part++) {
      const end = part === 0 ? size - predictorOrder : start + size
      let sum = 0
      for (let i = start; i < end; i++) sum += u[i] as number
      const k = riceParameter(sum, end - start)
      let quotients = 0
      for (let i = start; i < end; i++) quotients += (u[i] as number) >>> k
      bits += 4 + quotients + (end - start) * (k + 1)
      parameters.push(k)
      start = end
    }
    if (start !== count) throw new Error('FLAC partitions do not cover the residual')
    if (!best || bits < best.bits) best = { order: p, parameters, bits }
  }
  return best as ResidualPlan
}

function writeSubframe(out: BitWriter, x: Int16Array): void {
  const n = x.length
  if (x.every((v) => v === x[0])) {
    out.write(0, 8) // zero bit, CONSTANT (000000), no wasted bits
    out.write((x[0] as number) & 0xffff, BITS_PER_SAMPLE)
    return
  }
  // Each order's residual goes to `trial`; the best one so far is kept in `residual` (the two swap).
  let residual = new Int32Array(n)
  let trial = new Int32Array(n)
  let bestOrder = 0
  let bestSum = Number.POSITIVE_INFINITY
  for (let order = 0; order <= Math.min(4, n - 1); order++) {
    fixedResidual(x, order, trial)
    let sum = 0
    for (let i = 4 - order; i < n - order; i++) sum += Math.abs(trial[i] as number)
    if (sum < bestSum) {
      bestSum = sum
      bestOrder = order
      ;[residual, trial] = [trial, residual]
    }
  }
  const count = n - bestOrder
  const u = new Uint32Array(count)
  for (let i = 0; i < count; i++) {
    const r = residual[i] as number
    u[i] = r >= 0 ? 2 * r : -2 * r - 1
  }
  const plan = planResidual(u, count, n, bestOrder)
  const fixedBits = 8 + bestOrder * BITS_PER_SAMPLE + 6 + plan.bits
  if (fixedBits >= 8 + n * BITS_PER_SAMPLE) {
    out.write(0b00000010, 8) // VERBATIM
    for (const v of x) out.write(v & 0xffff, BITS_PER_SAMPLE)
    return
  }
  out.write(0b00010000 | (bestOrder << 1), 8) // FIXED, its order
  for (let i = 0; i < bestOrder; i++) out.write((x[i] as number) & 0xffff, BITS_PER_SAMPLE)
  out.write(0, 2) // Rice coding with 4-bit parameters
  out.write(plan.order, 4)
  const size = n >> plan.order
  let start = 0
  for (let part = 0; part < plan.parameters.length; part++) {
    const k = plan.parameters[part] as number
    const end = part === 0 ? size - bestOrder : start + size
    out.write(k, 4)
    for (let i = start; i < end; i++) {
      const value = u[i] as number
      out.unary(value >>> k)
      out.write(value & ((1 << k) - 1), k)
    }
    start = end
  }
}

function encodeFrame(x: Int16Array, frameNumber: number): Uint8Array {
  const out = new BitWriter()
  out.write(0xfff8, 16) // sync code, fixed block size
  const sizeCode = x.length === BLOCK_SIZE ? 0b1100 : x.length <= 256 ? 0b0110 : 0b0111
  out.write(sizeCode, 4)
  out.write(0b0101, 4) // 16 kHz (TARGET_SAMPLE_RATE)
  out.write(0b0000, 4) // one channel
  out.write(0b100, 3) // 16 bits per sample
  out.write(0, 1)
  writeFrameNumber(out, frameNumber)
  if (sizeCode === 0b0110) out.write(x.length - 1, 8)
  else if (sizeCode === 0b0111) out.write(x.length - 1, 16)
  out.write(crc8(out.bytes()), 8)
  writeSubframe(out, x)
  out.align()
  out.write(crc16(out.bytes()), 16)
  return out.bytes().slice()
}

/** Samples in, a FLAC file out: `write` 16-bit samples as they come, then `finish`. */
export class FlacEncoder {
  readonly #frames: Uint8Array[] = []
  readonly #block = new Int16Array(BLOCK_SIZE)
  #filled = 0
  #samples = 0
  #minFrame = Number.POSITIVE_INFINITY
  #maxFrame = 0
  readonly #md5: Hash | null = md5OrNull()

  /** Takes the samples (16-bit signed). */
  write(samples: Int16Array): void {
    // STREAMINFO's MD5 is of the samples' little-endian bytes.
    this.#md5?.update(int16Bytes(samples))
    let at = 0
    while (at < samples.length) {
      const take = Math.min(BLOCK_SIZE - this.#filled, samples.length - at)
      this.#block.set(samples.subarray(at, at + take), this.#filled)
      this.#filled += take
      at += take
      if (this.#filled === BLOCK_SIZE) this.#flush()
    }
  }

  /** The whole file. The encoder takes nothing more. */
  finish(): Buffer {
    if (this.#filled > 0) this.#flush()
    const header = new BitWriter()
    header.write(0x664c6143 >>> 8, 24) // "fLa"
    header.write(0x43, 8) // "C"
    header.write(0x80, 8) // the last metadata block, STREAMINFO
    header.write(34, 24)
    header.write(BLOCK_SIZE, 16)
    header.write(BLOCK_SIZE, 16)
    header.write(this.#frames.length > 0 ? this.#minFrame : 0, 24)
    header.write(this.#maxFrame, 24)
    header.write(TARGET_SAMPLE_RATE, 20)
    header.write(0, 3) // one channel
    header.write(BITS_PER_SAMPLE - 1, 5)
    header.write(Math.floor(this.#samples / 2 ** 32), 4)
    header.writeWide(this.#samples % 2 ** 32, 32)
    const md5 = this.#md5?.digest() ?? Buffer.alloc(16)
    for (const byte of md5) header.write(byte, 8)
    return Buffer.concat([header.bytes(), ...this.#frames])
  }

  #flush(): void {
    const frame = encodeFrame(this.#block.subarray(0, this.#filled), this.#frames.length)
    this.#frames.push(frame)
    this.#minFrame = Math.min(this.#minFrame, frame.length)
    this.#maxFrame = Math.max(this.#maxFrame, frame.length)
    this.#samples += this.#filled
    this.#filled = 0
  }
}

/** MD5 where the platform allows it (a FIPS build may not): a zero MD5 means "not computed" to FLAC. */
function md5OrNull(): Hash | null {
  try {
    return createHash('md5')
  } catch {
    return null
  }
}
