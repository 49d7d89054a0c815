import { PassThrough } from 'node:stream'
import t from 'tap'
import { OutputLines } from '../../../kernel/engine-runner/output-lines.ts'

function collect(limits = {}) {
  const stream = new PassThrough()
  const lines: string[] = []
  new OutputLines(stream, (line) => lines.push(line), limits)
  return { stream, lines, end: () => new Promise<void>((resolve) => stream.end(() => setImmediate(resolve))) }
}

t.test('splits chunks into lines, joins partial lines, drops blank ones', async (t) => {
  const { stream, lines, end } = collect()
  stream.write('first li')
  stream.write('ne\r\n\nsecond\nthi')
  stream.write('rd')
  await end()
  t.same(lines, ['first line', 'second', 'third'])
})

t.test('cuts long lines and rate-limits, reporting what was dropped', async (t) => {
  const { stream, lines, end } = collect({ maxLineLength: 10, linesPerWindow: 3, windowMs: 60_000 })
  stream.write(`${'x'.repeat(25)}`)
  stream.write(`${'y'.repeat(25)}\nshort\n`)
  for (let i = 0; i < 5; i++) stream.write(`line ${i}\n`)
  await end()
  t.same(lines, ['xxxxxxxxxx… (cut)', 'short', 'line 0', '(4 more lines of engine output not logged)'])
})
