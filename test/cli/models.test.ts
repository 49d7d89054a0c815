import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Writable } from 'node:stream'
import t from 'tap'
import { main } from '../../cli/index.ts'
import type { CliIO } from '../../cli/io.ts'
import { type ModelsIO, modelsCommand } from '../../cli/models.ts'
import { ModelManager } from '../../models/manager.ts'
import { repoRoot } from '../helpers/fixtures.ts'
import {
  MODEL_FILES,
  makeTarBz2,
  memoryLogger,
  startServer,
  type TestServer,
  testEntry,
} from '../models/fixtures.ts'

class Capture extends Writable {
  text = ''
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString('utf8')
    callback()
  }
}

interface Run {
  code: number
  stdout: string
  stderr: string
}

async function setup(t: { testdir(): string; teardown(fn: () => unknown): void }, sha256?: string | null) {
  const dir = t.testdir()
  const server: TestServer = await startServer()
  t.teardown(() => server.close())
  const archive = makeTarBz2(dir, 'top', MODEL_FILES)
  server.files.set('/test-model.tar.bz2', { body: archive })
  const entry = testEntry(server, 'test-model', 'tar.bz2', archive, sha256 === undefined ? {} : { sha256 })
  const manager = new ModelManager({
    modelsDir: path.join(dir, 'models'),
    logger: memoryLogger(),
    catalog: [entry],
  })
  t.teardown(() => manager.close())
  const run = async (args: string[], isTTY = false): Promise<Run> => {
    const stdout = new Capture()
    const stderr = new Capture()
    const io: ModelsIO = { stdout, stderr, stderrIsTTY: isTTY }
    const code = await modelsCommand(args, io, manager)
    return { code, stdout: stdout.text, stderr: stderr.text }
  }
  return { dir, server, manager, run }
}

t.test('list shows the catalog, installed or not; --json gives the API shape', async (t) => {
  const { run } = await setup(t)
  const table = await run(['list'])
  t.equal(table.code, 0)
  t.match(table.stdout, /^ID\s+ENGINE\s+FAMILY\s+SIZE\s+CUSTOM WORDS\s+INSTALLED/)
  t.match(table.stdout, /test-model\s+sherpa-onnx\s+nemo-transducer\s+\S+ \S*B\s+yes\s+no/)
  await run(['pull', 'test-model'])
  const json = await run(['list', '--json'])
  const parsed = JSON.parse(json.stdout) as { count: number; items: Array<Record<string, unknown>> }
  t.equal(parsed.count, 1)
  t.match(parsed.items[0], { id: 'test-model', installed: true, customWords: true, engine: 'sherpa-onnx' })
  t.ok((parsed.items[0]?.sizeOnDisk as number) > 0)
})

t.test('pull without a TTY prints plain progress lines and the install path', async (t) => {
  const { run, manager } = await setup(t)
  const result = await run(['pull', 'test-model'])
  t.equal(result.code, 0)
  t.match(
    result.stderr,
    /^Pulling test-model \(Test model test-model, .*\) from http:\/\/127\.0\.0\.1:\d+\/test-model\.tar\.bz2\n/,
  )
  t.match(result.stderr, /test-model: 100% \(/)
  t.notMatch(result.stderr, /\r/, 'no carriage returns in plain output')
  t.equal(result.stdout, `Installed test-model at ${manager.pathOf('test-model')} (checksum verified).\n`)
})

t.test('pull on a TTY redraws one progress bar line', async (t) => {
  const { run } = await setup(t)
  const result = await run(['pull', 'test-model'], true)
  t.equal(result.code, 0)
  t.ok(result.stderr.includes('\r\x1b[2Ktest-model ['), 'the line is erased and redrawn')
  t.match(result.stderr, /test-model \[#+\] 100%/)
  t.ok(result.stderr.endsWith('\n'), 'the bar line is ended')
})

t.test('pull of an installed model does nothing unless --force', async (t) => {
  const { run, server } = await setup(t)
  await run(['pull', 'test-model'])
  const again = await run(['pull', 'test-model'])
  t.equal(again.code, 0)
  t.match(again.stdout, /already installed/)
  t.equal(server.requests.length, 1)
  const forced = await run(['pull', 'test-model', '--force'])
  t.equal(forced.code, 0)
  t.equal(server.requests.length, 2)
})

t.test('pull --from a mirror URL', async (t) => {
  const { run, server } = await setup(t)
  server.files.set('/m/x.tar.bz2', { body: server.files.get('/test-model.tar.bz2')?.body ?? Buffer.alloc(0) })
  const result = await run(['pull', 'test-model', `--from=${server.url('/m/x.tar.bz2')}`])
  t.equal(result.code, 0)
  t.same(
    server.requests.map((request) => request.url),
    ['/m/x.tar.bz2'],
  )
})

t.test('failures exit with 1 and the catalogue message', async (t) => {
  const { run } = await setup(t, 'a'.repeat(64))
  const mismatch = await run(['pull', 'test-model'])
  t.equal(mismatch.code, 1)
  t.match(mismatch.stderr, /error: Model checksum mismatch: test-model: /)
  const unknown = await run(['pull', 'nope'])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /error: Model not found: nope/)
})

t.test('remove and verify', async (t) => {
  const { run } = await setup(t)
  const notInstalled = await run(['verify', 'test-model'])
  t.equal(notInstalled.code, 1)
  await run(['pull', 'test-model'])
  t.same(await run(['verify', 'test-model']), { code: 0, stdout: 'test-model: ok\n', stderr: '' })
  t.same(await run(['remove', 'test-model']), { code: 0, stdout: 'Removed test-model.\n', stderr: '' })
  t.same(await run(['remove', 'test-model']), {
    code: 1,
    stdout: '',
    stderr: 'test-model is not installed.\n',
  })
})

t.test('usage errors exit with 2; --help exits with 0', async (t) => {
  const { run } = await setup(t)
  for (const args of [
    [],
    ['frob'],
    ['pull'],
    ['pull', 'a', 'b'],
    ['pull', 'test-model', '--from'],
    ['list', 'x'],
  ]) {
    const result = await run(args)
    t.equal(result.code, 2, `models ${args.join(' ')}`)
    t.match(result.stderr, /Usage: dictum models/)
  }
  t.equal((await run(['list', '--bogus'])).code, 2)
  const help = await run(['--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /Commands:/)
  for (const command of ['list', 'pull', 'remove', 'verify']) {
    const commandHelp = await run([command, '--help'])
    t.equal(commandHelp.code, 0)
    t.match(commandHelp.stdout, new RegExp(`^Usage: dictum models ${command}`))
  }
})

t.test('dictum models pull draws its bar by whether stderr, where it draws, is a terminal', async (t) => {
  const server = await startServer()
  t.teardown(() => server.close())
  // The catalog's Silero VAD v6.2 is byte-identical to the model dictum ships: a real pull, checksum and all.
  server.files.set('/silero_vad.onnx', {
    body: readFileSync(path.join(repoRoot, 'assets/silero-vad/silero_vad.onnx')),
  })
  const pull = async (terminals: { stdout: boolean; stderr: boolean }) => {
    const stdout = new Capture()
    const stderr = new Capture()
    const dataDir = t.testdir()
    const io: CliIO = {
      stdout,
      stderr,
      isTTY: terminals.stdout,
      stderrIsTTY: terminals.stderr,
      env: { HOME: dataDir },
      cwd: dataDir,
    }
    const args = ['models', 'pull', 'silero-vad-v6.2', `--from=${server.url('/silero_vad.onnx')}`]
    const code = await main([...args, '--data-dir', dataDir], io)
    return { code, stderr: stderr.text }
  }
  const redirected = await pull({ stdout: true, stderr: false })
  t.equal(redirected.code, 0, redirected.stderr)
  t.notOk(
    redirected.stderr.includes('\r') || redirected.stderr.includes('\x1b'),
    'stdout on a terminal, stderr to a file: plain lines, no escapes',
  )
  t.match(redirected.stderr, /silero-vad-v6\.2: 100% \(/)
  const terminal = await pull({ stdout: false, stderr: true })
  t.equal(terminal.code, 0, terminal.stderr)
  t.ok(terminal.stderr.includes('\r\x1b[2Ksilero-vad-v6.2 ['), 'stderr on a terminal: the bar is redrawn')
})
