/**
 * `dictum transcribe` / `dictum dictate` use a running dictum service when one answers (on the configured
 * address or `--server`), as `ollama run` uses `ollama serve`; `--local` works in process. A real service
 * (pocketsphinx, what `dictum serve` runs, listening on a port) and the CLI's `main()`, each with a config
 * and data folder of its own: what the CLI prints shows which of the two did the work.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { freePort, serveInProcess } from '../helpers/serve.ts'
import { audioFixturesDir, cleanEnv, runCli, tempDir } from './run-cli.ts'

// The shortest clip does the work (the subject is where the work runs, not the recognition); JFK is only
// named where nothing is transcribed.
const JFK = path.join(audioFixturesDir, 'jfk.wav')
const GOFORWARD = path.join(audioFixturesDir, 'goforward.wav')

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>

t.test('a running service does the work; its dictionary and --local prove where it ran', async (t) => {
  const dir = tempDir(t)
  const port = await freePort()
  const dataDir = path.join(dir, 'data')
  // The service: pocketsphinx, with a replacement rule in its dictionary.
  const serverConfig = path.join(dir, 'server.json')
  writeFileSync(
    serverConfig,
    JSON.stringify({ dataDir, api: { port }, speech: { engine: 'pocketsphinx' }, log: { level: 'silent' } }),
  )
  const env = cleanEnv(dir, { DICTUM_SERVER: '' })
  await serveInProcess(t, readJson(serverConfig), { dataDir, port, env: { DICTUM_SERVER: '' } })
  const rule = await fetch(`http://127.0.0.1:${port}/v1/dictionary/replacements`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ triggers: ['forward'], replacement: 'FORWARD' }),
  })
  t.equal(rule.status, 200)

  // The CLI's config names the same address but a data folder of its own, whose dictionary is empty: only
  // the running service has the rule.
  const cliConfig = path.join(dir, 'cli.json')
  writeFileSync(
    cliConfig,
    JSON.stringify({
      dataDir: path.join(dir, 'cli-data'),
      api: { port },
      speech: { engine: 'pocketsphinx' },
    }),
  )

  const viaServer = await runCli(['transcribe', '--config', cliConfig, '--format', 'json', GOFORWARD], {
    env,
  })
  t.equal(viaServer.code, 0, viaServer.stderr)
  const transcript = JSON.parse(viaServer.stdout)
  t.equal(transcript.engine, 'pocketsphinx', "the service's engine did the work")
  t.match(transcript.text, /FORWARD/, "the service's dictionary was applied")
  t.equal(transcript.sampleCount, 44580)
  t.ok(transcript.segments.length > 0 && Array.isArray(transcript.words), 'segments and words came back')

  const local = await runCli(['transcribe', '--config', cliConfig, '--local', GOFORWARD], { env })
  t.equal(local.code, 0, local.stderr)
  t.match(local.stdout, /forward/, '--local works in process')
  t.notMatch(local.stdout, /FORWARD/, "with this process's own (empty) dictionary")

  const none = await runCli(['transcribe', '--config', cliConfig, GOFORWARD], {
    env: { ...env, DICTUM_SERVER: 'none' },
  })
  t.equal(none.code, 0, none.stderr)
  t.match(none.stdout, /forward/)
  t.notMatch(none.stdout, /FORWARD/, 'DICTUM_SERVER=none works in process too')

  const explicit = await runCli(
    ['transcribe', '--config', cliConfig, '--server', `http://127.0.0.1:${port}`, GOFORWARD],
    { env: { ...env, DICTUM_SERVER: 'none' } },
  )
  t.equal(explicit.code, 0, `--server beats DICTUM_SERVER=none: ${explicit.stderr}`)
  t.match(explicit.stdout, /FORWARD/, 'the service did it')

  const missing = path.join(dir, 'missing.wav')
  const failed = await runCli(['transcribe', '--config', cliConfig, missing], { env })
  t.equal(failed.code, 1)
  t.match(
    failed.stderr,
    `${missing}: Audio file not found:`,
    "the service's error, as the in-process one reads",
  )

  // dictate records in this process (its config must be valid), with a database of its own: the entry
  // lands in the service's history only if the service did the dictation.
  const dictateConfig = path.join(dir, 'dictate.json')
  writeFileSync(
    dictateConfig,
    JSON.stringify({
      dataDir: path.join(dir, 'cli-data'),
      api: { port },
      speech: { engine: 'pocketsphinx' },
    }),
  )
  const dictated = await runCli(
    ['dictate', '--config', dictateConfig, '--input', GOFORWARD, '--app-name', 'Mail', '--json'],
    { env },
  )
  t.equal(dictated.code, 0, dictated.stderr)
  const entry = JSON.parse(dictated.stdout)
  t.match(entry.finalText, /FORWARD/, "the service's dictionary")
  t.equal(entry.appName, 'Mail')
  t.notOk('stored' in entry, 'the entry as the in-process command prints it')
  const history = (await (await fetch(`http://127.0.0.1:${port}/v1/history`)).json()) as {
    items: { appName: string }[]
  }
  t.equal(history.items[0]?.appName, 'Mail', 'the service stored the dictation')
})

t.test('the same document through the service as in process', async (t) => {
  const dir = tempDir(t)
  const port = await freePort()
  const config = path.join(dir, 'config.json')
  writeFileSync(
    config,
    JSON.stringify({
      dataDir: path.join(dir, 'data'),
      api: { port },
      speech: { engine: 'pocketsphinx' },
      log: { level: 'silent' },
    }),
  )
  const env = cleanEnv(dir, { DICTUM_SERVER: '' })
  const before = await runCli(['transcribe', '--config', config, '--format', 'srt', GOFORWARD], { env })
  t.equal(before.code, 0, before.stderr)
  await serveInProcess(t, readJson(config), {
    dataDir: path.join(dir, 'data'),
    port,
    env: { DICTUM_SERVER: '' },
  })
  const viaServer = await runCli(['transcribe', '--config', config, '--format', 'srt', GOFORWARD], {
    env,
  })
  t.equal(viaServer.code, 0, viaServer.stderr)
  t.match(before.stdout, /forward/)
  t.equal(viaServer.stdout, before.stdout, 'identical SRT')
})

t.test('--server that does not answer, bad URL, contradicting flags', async (t) => {
  const dir = tempDir(t)
  const port = await freePort()
  const env = cleanEnv(dir)
  const gone = await runCli(['transcribe', '--server', `http://127.0.0.1:${port}`, JFK], { env })
  t.equal(gone.code, 3)
  t.match(gone.stderr, `no dictum service answers at http://127.0.0.1:${port}`)
  const bad = await runCli(['transcribe', '--server', 'not a url', JFK], { env })
  t.equal(bad.code, 2)
  const both = await runCli(['transcribe', '--server', `http://127.0.0.1:${port}`, '--local', JFK], { env })
  t.equal(both.code, 2)
  const engine = await runCli(
    ['transcribe', '--server', `http://127.0.0.1:${port}`, '--engine', 'pocketsphinx', JFK],
    { env },
  )
  t.equal(engine.code, 2, '--engine works in process only')
})
