/**
 * Section `cli`: wall time of `dictum transcribe jfk.wav` (11 s of speech, pocketsphinx) in process
 * (`--local`: the command starts its own engine) against the same command sent to a running `dictum serve`
 * (its engine is warm), both with the installed package (lib/packed.ts). Rounds alternate the two ways, so
 * machine noise hits both alike.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort, untilHealthy } from '../test/helpers/serve.ts'
import { median, round } from './lib/load.ts'
import { packedDictum } from './lib/packed.ts'

const ROOT = path.resolve(import.meta.dirname, '..')
const CLIP = path.join(ROOT, 'test/fixtures/audio/jfk.wav')
const ROUNDS = 5

export async function benchCli(): Promise<Record<string, number | string>> {
  const packed = packedDictum()
  const bin = packed.bin
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-bench-cli-'))
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
  const env = { ...packed.env, DICTUM_SERVER: '' }
  const server = spawn(process.execPath, [bin, 'serve', '--config', config], { env, stdio: 'ignore' })
  try {
    await untilHealthy(server, port)
    await run(bin, ['transcribe', '--config', config, CLIP], env) // the service loads its engine once
    const local: number[] = []
    const viaServer: number[] = []
    for (let i = 0; i < ROUNDS; i++) {
      local.push(await run(bin, ['transcribe', '--config', config, '--local', CLIP], env))
      viaServer.push(await run(bin, ['transcribe', '--config', config, CLIP], env))
    }
    const localMs = median(local)
    const serverMs = median(viaServer)
    return {
      'local (cold engine) ms, median': round(localMs, 0),
      'via running service ms, median': round(serverMs, 0),
      'service / local': round(serverMs / localMs),
      rounds: ROUNDS,
    }
  } finally {
    server.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
    packed.remove()
  }
}

/** Milliseconds `dictum ARGS` takes, start to exit; a failure stops the bench. */
function run(bin: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text
    })
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`dictum ${args.join(' ')} exited ${code}: ${stderr}`)),
    )
  })
}
