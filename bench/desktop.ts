/**
 * Section `desktop`: hold-to-talk at an X desktop. From `dictum dictate --end` (the key release) to the last
 * character typed into the focused window (an xterm on Xvfb, typed by xdotool; `--end` returns once the
 * recorder has typed), against `POST /v1/transcribe` of the same audio (jfk.wav, 11 s, pocketsphinx) on the
 * same running service, sent the same way (base64 JSON). The recording itself comes from the fake microphone
 * (ffmpeg lavfi reading the clip in real time) and is not timed. Rounds alternate the two.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort, untilHealthy } from '../test/helpers/serve.ts'
import { median, round } from './lib/load.ts'
import { packedDictum } from './lib/packed.ts'

const ROOT = path.resolve(import.meta.dirname, '..')
const CLIP = path.join(ROOT, 'test/fixtures/audio/jfk.wav')
const ROUNDS = 5

export async function benchDesktop(): Promise<Record<string, number | string>> {
  const packed = packedDictum()
  const dir = mkdtempSync(path.join(tmpdir(), 'dictum-bench-desktop-'))
  const children: ChildProcess[] = []
  try {
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
    const display = await startDisplay(children)
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DICTUM_SERVER: '',
      DISPLAY: display,
      XDG_RUNTIME_DIR: dir,
    }
    delete env.WAYLAND_DISPLAY
    const server = spawn(process.execPath, [packed.bin, 'serve', '--config', config], {
      env,
      stdio: 'ignore',
    })
    children.push(server)
    await untilHealthy(server, port)
    const body = JSON.stringify({ audioBase64: readFileSync(CLIP).toString('base64'), filename: 'jfk.wav' })
    const transcribe = async () => {
      const started = performance.now()
      const reply = await fetch(`http://127.0.0.1:${port}/v1/transcribe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      if (!reply.ok) throw new Error(`transcribe: ${reply.status} ${await reply.text()}`)
      await reply.json()
      return performance.now() - started
    }
    await transcribe() // the service loads its engine once
    const direct: number[] = []
    const released: number[] = []
    for (let i = 0; i < ROUNDS; i++) {
      direct.push(await transcribe())
      released.push(await holdToTalk(packed.bin, config, env, children))
    }
    const directMs = median(direct)
    const releasedMs = median(released)
    return {
      'POST /v1/transcribe ms, median': round(directMs, 0),
      '--end to last character typed ms, median': round(releasedMs, 0),
      'typed / transcribe (target <= 1.2)': round(releasedMs / directMs),
      rounds: ROUNDS,
    }
  } finally {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
    packed.remove()
  }
}

/** One `--begin` recording of the clip, then the timed `--end`. */
async function holdToTalk(
  bin: string,
  config: string,
  env: NodeJS.ProcessEnv,
  children: ChildProcess[],
): Promise<number> {
  const device = ['--backend', 'lavfi', '--device', `amovie=${CLIP}`]
  const recorder = spawn(
    process.execPath,
    [bin, 'dictate', '--begin', '--type', '-v', ...device, '--config', config],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  )
  children.push(recorder)
  let stderr = ''
  recorder.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr += text
  })
  while (!stderr.includes('waiting for dictum dictate --end')) {
    if (recorder.exitCode !== null) throw new Error(`the recorder exited: ${stderr}`)
    await sleep(50)
  }
  const started = performance.now()
  execFileSync(process.execPath, [bin, 'dictate', '--end'], { env, stdio: 'ignore' })
  return performance.now() - started
}

/** Xvfb and a focused xterm (its input thrown away) for xdotool to type into; returns DISPLAY. */
async function startDisplay(children: ChildProcess[]): Promise<string> {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  })
  children.push(xvfb)
  const display = await new Promise<string>((resolve, reject) => {
    let out = ''
    ;(xvfb.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('\n')) resolve(`:${out.trim()}`)
    })
    xvfb.once('exit', () => reject(new Error('Xvfb did not start (apt-get install xvfb xdotool xterm)')))
  })
  const env = { ...process.env, DISPLAY: display }
  const xterm = spawn('xterm', ['-title', 'dictum-bench', '-e', 'cat'], {
    env,
    stdio: 'ignore',
  })
  children.push(xterm)
  for (;;) {
    let id = ''
    try {
      id = execFileSync('xdotool', ['search', '--onlyvisible', '--name', 'dictum-bench'], { env })
        .toString()
        .trim()
        .split('\n')[0] as string
    } catch {} // none yet: xdotool exits 1
    if (id) {
      execFileSync('xdotool', ['mousemove', '--window', id, '20', '20'], { env })
      execFileSync('xdotool', ['windowfocus', id], { env })
      return display
    }
    await sleep(100)
  }
}
