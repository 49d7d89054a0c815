import { Writable } from 'node:stream'
import t from 'tap'
import { formatDuration, ProgressBar } from '../../cli/progress-bar.ts'
import { formatBytes } from '../../models/format-bytes.ts'

class Capture extends Writable {
  text = ''
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString('utf8')
    callback()
  }
}

t.test('plain mode prints one line per 10% step and a final line', async (t) => {
  const stream = new Capture()
  const bar = new ProgressBar({ stream, isTTY: false, label: 'model' })
  for (let current = 0; current <= 1000; current += 50) {
    bar.update({ current, total: 1000, rate: 500, etaSeconds: (1000 - current) / 500 })
  }
  bar.finish('done')
  const lines = stream.text.trimEnd().split('\n')
  t.equal(lines[0], 'model: 0% (0 B / 1.00 kB, 500 B/s, ETA 0:02)')
  t.equal(lines.filter((line) => line.startsWith('model: ')).length, 11, '0%, 10%, …, 100%')
  t.equal(lines[lines.length - 2], 'model: 100% (1.00 kB / 1.00 kB, 500 B/s)')
  t.equal(lines[lines.length - 1], 'done')
})

t.test('plain mode without a total prints every step of units', async (t) => {
  const stream = new Capture()
  const bar = new ProgressBar({ stream, isTTY: false, label: 'dl', stepUnits: 100 })
  for (const current of [0, 50, 120, 150, 260]) bar.update({ current, total: null })
  bar.finish()
  t.same(stream.text.trimEnd().split('\n'), ['dl: 0 B', 'dl: 120 B', 'dl: 260 B'])
})

t.test('TTY mode redraws in place, throttled, and always draws the end', async (t) => {
  const stream = new Capture()
  let clock = 0
  const bar = new ProgressBar({ stream, isTTY: true, label: 'x', width: 80, now: () => clock })
  bar.update({ current: 0, total: 100 })
  bar.update({ current: 10, total: 100 })
  clock = 50
  bar.update({ current: 20, total: 100 })
  clock = 200
  bar.update({ current: 30, total: 100, rate: 10, etaSeconds: 7 })
  bar.update({ current: 100, total: 100 })
  bar.finish()
  const draws = stream.text.split('\r\x1b[2K').filter((part) => part.length > 0)
  t.equal(draws.length, 4, 'first, the one after 100 ms, the complete one, and the final redraw')
  t.match(draws[1], /^x \[#+-+\] {2}30% {2}30 B \/ 100 B {2}10 B\/s {2}ETA 0:07$/)
  t.match(draws[2], /^x \[#+\] 100% {2}100 B \/ 100 B$/)
  t.ok(stream.text.endsWith('\n'))
})

t.test('count unit, for progress across files', async (t) => {
  const stream = new Capture()
  const bar = new ProgressBar({ stream, isTTY: false, label: 'transcribe', unit: 'count', stepPercent: 50 })
  bar.update({ current: 1, total: 4, detail: 'a.wav' })
  bar.update({ current: 2, total: 4, detail: 'b.wav' })
  bar.finish()
  t.same(stream.text.trimEnd().split('\n'), ['transcribe: 25% (1/4, a.wav)', 'transcribe: 50% (2/4, b.wav)'])
})

t.test('clear erases a drawn bar', async (t) => {
  const stream = new Capture()
  const bar = new ProgressBar({ stream, isTTY: true, label: 'x', now: () => 0 })
  bar.update({ current: 1, total: 2 })
  bar.clear()
  t.ok(stream.text.endsWith('\r\x1b[2K'))
})

t.test('formatting', async (t) => {
  t.equal(formatBytes(0), '0 B')
  t.equal(formatBytes(999), '999 B')
  t.equal(formatBytes(1500), '1.50 kB')
  t.equal(formatBytes(482_468_385), '482 MB')
  t.equal(formatBytes(1_800_000_000), '1.80 GB')
  t.equal(formatBytes(12_300_000), '12.3 MB')
  t.equal(formatDuration(7), '0:07')
  t.equal(formatDuration(754), '12:34')
  t.equal(formatDuration(3723), '1:02:03')
})
