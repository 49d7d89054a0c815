/**
 * A real X desktop for the desktop tests: Xvfb on a display it picks itself (`-displayfd`), and `xterm`
 * running `cat > FILE` as the focused window, so what `xdotool` types is read back from the file. Every
 * process is killed at the test's end. Waits poll for a condition with a generous bound, never a fixed sleep.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import type { Test } from 'tap'
import { findExecutable } from '../../../cli/desktop-tools.ts'

const run = promisify(execFile)

/** The tools the desktop tests need (scripts/setup.sh installs them); the first one missing, or null. */
export function missingTool(): string | null {
  for (const tool of ['Xvfb', 'xdotool', 'xterm']) if (findExecutable(tool, process.env) === null) return tool
  return null
}

/** Polls `check` until it returns a value other than undefined; throws `what` after `ms`. */
export async function until<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  ms = 60_000,
) {
  const deadline = Date.now() + ms
  for (let wait = 20; ; wait = Math.min(wait * 2, 250)) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(wait)
  }
}

function kill(t: Test, child: ChildProcess): void {
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  })
}

/** Starts Xvfb; resolves with its DISPLAY once it accepts clients. */
export async function startX(t: Test): Promise<string> {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '800x600x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  })
  kill(t, xvfb)
  let stderr = ''
  xvfb.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const number = await new Promise<string>((resolve, reject) => {
    let out = ''
    const fd = xvfb.stdio[3] as NodeJS.ReadableStream
    fd.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('\n')) resolve(out.trim())
    })
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${stderr}`)))
  })
  return `:${number}`
}

export interface Window {
  /** What was typed into the window so far, once a line is complete (see {@link readLine}). */
  readLine(): Promise<string>
  env: NodeJS.ProcessEnv
}

/**
 * An xterm running `cat > file` on `display`, focused (no window manager: the pointer is moved into it and
 * it is given the input focus). The returned env has DISPLAY set for the CLI.
 */
export async function focusedTerminal(t: Test, display: string, dir: string): Promise<Window> {
  const file = path.join(dir, 'typed.txt')
  const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: display }
  delete env.WAYLAND_DISPLAY
  // BackSpace in xterm sends DEL; the terminal's line editing must take it as erase.
  const xterm = spawn(
    'xterm',
    [
      '-geometry',
      '120x10+0+0',
      '-title',
      'dictum-target',
      '-e',
      'sh',
      '-c',
      `stty erase '^?'; exec cat > '${file}'`,
    ],
    { env, stdio: 'ignore' },
  )
  kill(t, xterm)
  await until('cat to run in xterm', () => (existsSync(file) ? true : undefined))
  const id = await until('the xterm window', async () => {
    const found = await run('xdotool', ['search', '--onlyvisible', '--name', 'dictum-target'], { env }).catch(
      () => null,
    )
    return found?.stdout.trim().split('\n')[0] || undefined
  })
  await run('xdotool', ['mousemove', '--window', id, '20', '20'], { env })
  await run('xdotool', ['windowfocus', id], { env })
  return {
    env,
    async readLine() {
      // Return ends the line: cat writes it to the file, after every key typed before it.
      await run('xdotool', ['key', 'Return'], { env })
      return until('the typed line in the file', () => {
        const text = readFileSync(file, 'utf8')
        return text.includes('\n') ? text.slice(0, text.indexOf('\n')) : undefined
      })
    },
  }
}
