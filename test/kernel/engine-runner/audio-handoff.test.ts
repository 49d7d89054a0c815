import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import {
  AudioHandoff,
  AudioReceiver,
  INLINE_MAX_BYTES,
  sharedMemoryDir,
  sweepOrphans,
  usableDir,
} from '../../../kernel/engine-runner/audio-handoff.ts'
import { digest, handoffFiles, noise } from './runner-helpers.ts'

function tempDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dictum-handoff-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** A writer in `dir` and a receiver, both closed when the test ends. */
function handoffPair(t: Test, dir: string): { handoff: AudioHandoff; receiver: AudioReceiver } {
  const handoff = new AudioHandoff(dir)
  const receiver = new AudioReceiver()
  t.teardown(() => {
    receiver.close()
    handoff.close()
  })
  return { handoff, receiver }
}

t.test('small pieces go inline, large ones through one private file that is reused', async (t) => {
  const dir = tempDir(t)
  const { handoff, receiver } = handoffPair(t, dir)
  const small = noise(0.5)
  t.ok(small.byteLength <= INLINE_MAX_BYTES)
  const inline = handoff.pack(small)
  t.equal(inline.kind, 'inline')
  t.equal(receiver.receive(inline), small, 'inline samples are the same array')
  t.same(handoffFiles(dir), [], 'no file for a small piece')

  const first = noise(11, 2)
  const wire = handoff.pack(first)
  t.equal(wire.kind, 'file')
  if (wire.kind !== 'file') return
  t.equal(wire.length, first.length)
  t.equal(path.dirname(wire.file), dir)
  t.equal(fs.statSync(wire.file).mode & 0o777, 0o600, 'only this user can read the audio')
  t.equal(digest(receiver.receive(wire)), digest(first))

  // a shorter piece after a longer one: the file is larger than the piece, the length says how much to read
  const second = noise(3, 3)
  const again = handoff.pack(second)
  t.equal(again.kind === 'file' && again.file, wire.file, 'the same file serves the next piece')
  t.equal(digest(receiver.receive(again)), digest(second))
  t.equal(handoffFiles(dir).length, 1)

  // a view into a larger buffer hands over only its own samples
  const view = noise(20, 4).subarray(16000, 16000 * 6)
  t.equal(digest(receiver.receive(handoff.pack(view))), digest(view))

  handoff.close()
  t.same(handoffFiles(dir), [], 'close removes the file')
  t.equal(handoff.pack(first).kind, 'inline', 'after close pieces go inline')
  handoff.close()
})

t.test('the host reads each piece into memory it keeps, but never into memory still lent out', async (t) => {
  const dir = tempDir(t)
  const { handoff, receiver } = handoffPair(t, dir)
  const long = noise(11, 5)
  const first = receiver.receive(handoff.pack(long))
  t.equal(digest(first), digest(long))
  receiver.release(first)

  // released: the next piece (shorter) is read into the same memory, and its view has its own length
  const short = noise(4, 6)
  const second = receiver.receive(handoff.pack(short))
  t.equal(second.buffer, first.buffer, 'memory reused after release')
  t.equal(second.length, short.length)
  t.equal(digest(second), digest(short))

  // not released: a piece arriving meanwhile gets memory of its own, and the lent piece is not overwritten
  const other = noise(4, 7)
  const third = receiver.receive(handoff.pack(other))
  t.not(third.buffer, second.buffer, 'lent memory is not reused')
  t.equal(digest(third), digest(other))
  t.equal(digest(second), digest(short), 'the lent piece is intact')
  receiver.release(third)
  receiver.release(second)

  // a piece larger than the kept memory gets a larger buffer, which is then kept
  const longer = noise(20, 8)
  const fourth = receiver.receive(handoff.pack(longer))
  t.not(fourth.buffer, second.buffer)
  t.equal(digest(fourth), digest(longer))
  receiver.release(fourth)
  const fifth = receiver.receive(handoff.pack(long))
  t.equal(fifth.buffer, fourth.buffer, 'the larger memory is kept')
  t.equal(digest(fifth), digest(long))
  receiver.release(fifth)

  // inline samples are the message's own and are never kept
  const small = noise(0.5, 9)
  const inline = receiver.receive(handoff.pack(small))
  receiver.release(inline)
  t.equal(digest(receiver.receive(handoff.pack(longer))), digest(longer))
})

t.test('a missing or short handoff file is refused, not read as audio', async (t) => {
  const dir = tempDir(t)
  const handoff = new AudioHandoff(dir)
  t.teardown(() => handoff.close())
  const wire = handoff.pack(noise(5))
  if (wire.kind !== 'file') return t.fail('expected a file')
  fs.truncateSync(wire.file, 1000)
  const receiver = new AudioReceiver()
  t.teardown(() => receiver.close())
  t.throws(() => receiver.receive(wire), /holds 1000 bytes, expected 320000/)
  // the refused piece's memory is not left lent out: the next good piece reuses it
  const good = noise(5, 2)
  const samples = receiver.receive(handoff.pack(good))
  t.equal(digest(samples), digest(good))
  receiver.release(samples)
  t.equal(receiver.receive(handoff.pack(good)).buffer, samples.buffer)
  fs.rmSync(wire.file)
  t.throws(() => new AudioReceiver().receive(wire), { code: 'ENOENT' })
})

t.test('without a usable directory, or when writing fails, pieces go through the pipe', async (t) => {
  const big = noise(5)
  t.equal(new AudioHandoff(null).pack(big).kind, 'inline')
  const dir = tempDir(t)
  const gone = path.join(dir, 'gone')
  fs.mkdirSync(gone)
  const handoff = new AudioHandoff(gone)
  fs.rmdirSync(gone)
  const wire = handoff.pack(big)
  t.equal(wire.kind, 'inline')
  t.equal(wire.kind === 'inline' && wire.samples, big)
  t.equal(usableDir(gone), null)
  t.equal(usableDir(path.join(dir, 'x', 'y')), null)
  fs.writeFileSync(path.join(dir, 'file'), '')
  t.equal(usableDir(path.join(dir, 'file')), null, 'a file is not a directory')
  t.equal(usableDir(dir), dir)
  if (fs.existsSync('/dev/shm')) t.equal(sharedMemoryDir(), usableDir('/dev/shm'))
})

t.test('files left by a process that died are swept; live writers and other files are kept', async (t) => {
  const dir = tempDir(t)
  const dead = spawnSync(process.execPath, ['-e', '0']).pid
  t.ok(dead > 0)
  const names = [
    `dictum-audio-${dead}-00aa11bb22cc33dd.f32`,
    `dictum-audio-${process.pid}-00aa11bb22cc33dd.f32`,
    'dictum-audio-notes.txt',
    'other-file.f32',
  ]
  for (const name of names) fs.writeFileSync(path.join(dir, name), 'x')
  t.equal(sweepOrphans(dir), 1)
  t.same(fs.readdirSync(dir).sort(), names.slice(1).sort())
  t.equal(sweepOrphans(path.join(dir, 'missing')), 0, 'a missing directory sweeps nothing')
})
