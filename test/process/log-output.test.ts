/**
 * The service's log is readable on a terminal (pino-pretty) and one JSON object per line otherwise. A real
 * `dictum serve` in a pseudo-terminal (util-linux `script`) and with a pipe.
 */
import { spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { logStream } from '../../lib/log-destination.ts'
import { cleanEnv, tempDir } from '../cli/run-cli.ts'
import { repoRoot } from '../helpers/fixtures.ts'

const BIN = path.join(repoRoot, 'bin/dictum.js')

/** Runs `dictum serve` until its first log lines arrive, then stops it; returns what it printed. */
function firstLines(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    const timer = setTimeout(() => child.kill('SIGTERM'), 30_000)
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      out += text
      if (out.includes('watching the config file')) child.kill('SIGTERM')
    })
    child.once('error', reject)
    child.once('close', () => {
      clearTimeout(timer)
      resolve(out)
    })
  })
}

t.test('pretty on a terminal, JSON lines on a pipe', async (t) => {
  const dir = tempDir(t)
  const env = cleanEnv(dir)
  const serve = `${process.execPath} ${BIN} serve --port 0 --data-dir ${path.join(dir, 'data')}`
  const tty = await firstLines('script', ['-q', '-c', serve, '/dev/null'], env)
  t.match(tty, /INFO.*dictum API listening/, 'a readable line on the terminal')
  t.notMatch(tty, /"msg":/, 'not JSON')

  const piped = await firstLines(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--data-dir', path.join(dir, 'data')],
    env,
  )
  const lines = piped.trim().split('\n')
  t.ok(lines.length >= 2)
  for (const line of lines) t.doesNotThrow(() => JSON.parse(line), 'each line is JSON')
  t.match(JSON.parse(lines[0] as string), { level: 30, msg: 'dictum API listening' })
})

t.test('logStream formats a line for a terminal and passes JSON through otherwise', async (t) => {
  const dir = tempDir(t)
  const line = `${JSON.stringify({ level: 40, time: 0, msg: 'disk nearly full', free: 12 })}\n`
  for (const isTTY of [true, false]) {
    const file = path.join(dir, `${isTTY}.log`)
    const fd = openSync(file, 'w')
    logStream(isTTY, fd).write(line)
    closeSync(fd)
    const written = readFileSync(file, 'utf8')
    if (isTTY) {
      t.match(written, /WARN.*disk nearly full/, 'a terminal gets a readable line')
      t.match(written, /free.*12/, 'with its fields')
    } else t.equal(written, line, 'anything else gets the JSON line as it is')
  }
})
