/**
 * The desktop tools `dictum dictate --copy` / `--type` hand the text to: the first one installed, preferring
 * the one for the running session (Wayland, X11, macOS). The text goes through stdin, never a shell.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { accessSync, constants } from 'node:fs'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { CliError } from './cli-error.ts'
import { EXIT } from './io.ts'

export interface DesktopTool {
  name: string
  /** Absolute path found on PATH. */
  command: string
  args: string[]
  /** Arguments that press BackSpace `count` times (typing tools: live text corrected in place). */
  backspaces?: (count: number) => string[]
}

type Session = 'wayland' | 'x11' | 'macos' | 'any'

interface Candidate {
  name: string
  /** The tool's arguments; typing tools pause `delayMs` between keys. */
  args: (delayMs: number) => string[]
  session: Session
  backspaces?: (count: number) => string[]
}

const CLIPBOARD: Candidate[] = [
  { name: 'wl-copy', args: () => [], session: 'wayland' },
  { name: 'xclip', args: () => ['-selection', 'clipboard'], session: 'x11' },
  { name: 'xsel', args: () => ['--clipboard', '--input'], session: 'x11' },
  { name: 'pbcopy', args: () => [], session: 'macos' },
]

const TYPING: Candidate[] = [
  {
    name: 'wtype',
    args: (ms) => ['-d', String(ms), '-'],
    session: 'wayland',
    backspaces: (count) => Array.from({ length: count }, () => ['-k', 'BackSpace']).flat(),
  },
  {
    name: 'xdotool',
    args: (ms) => ['type', '--clearmodifiers', '--delay', String(ms), '--file', '-'],
    session: 'x11',
    backspaces: (count) => ['key', '--clearmodifiers', '--repeat', String(count), 'BackSpace'],
  },
  {
    name: 'ydotool',
    args: (ms) => ['type', '--key-delay', String(ms), '--file', '-'],
    session: 'any',
    // 14 is KEY_BACKSPACE (linux/input-event-codes.h): pressed and released.
    backspaces: (count) => Array.from({ length: count }, () => ['14:1', '14:0']).flat(),
  },
]

const MAX_STDERR = 4096

function sessionsOf(env: NodeJS.ProcessEnv): Session[] {
  const sessions: Session[] = []
  if (env.WAYLAND_DISPLAY) sessions.push('wayland')
  if (env.DISPLAY) sessions.push('x11')
  if (process.platform === 'darwin') sessions.push('macos')
  return sessions
}

/** The executable `name` on PATH, or null. */
export function findExecutable(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue
    const file = path.join(dir, name)
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {}
  }
  return null
}

function pick(candidates: Candidate[], env: NodeJS.ProcessEnv, delayMs = 0): DesktopTool | null {
  const sessions = sessionsOf(env)
  const ordered = [
    ...candidates.filter((c) => sessions.includes(c.session)),
    ...candidates.filter((c) => !sessions.includes(c.session)),
  ]
  for (const candidate of ordered) {
    const command = findExecutable(candidate.name, env)
    if (command)
      return {
        name: candidate.name,
        command,
        args: candidate.args(delayMs),
        ...(candidate.backspaces ? { backspaces: candidate.backspaces } : {}),
      }
  }
  return null
}

export function clipboardTool(env: NodeJS.ProcessEnv): DesktopTool {
  const tool = pick(CLIPBOARD, env)
  if (tool) return tool
  throw new CliError(
    '--copy: no clipboard tool found. Install wl-clipboard (Wayland), xclip or xsel (X11); macOS has pbcopy.',
    EXIT.unavailable,
  )
}

/** The typing tool for this session, typing with `delayMs` between keys. */
export function typingTool(env: NodeJS.ProcessEnv, delayMs: number): DesktopTool {
  // wtype and xdotool type into a display: without one they would fail only after the user has spoken.
  const usable = TYPING.filter((c) => c.session === 'any' || sessionsOf(env).includes(c.session))
  const tool = pick(usable, env, delayMs)
  if (tool) return tool
  const installed = pick(TYPING, env)
  if (installed)
    throw new CliError(
      `--type: ${installed.name} is installed but there is no display to type into (${installed.name === 'wtype' ? 'WAYLAND_DISPLAY' : 'DISPLAY'} is not set): run dictum from your desktop session, e.g. a key binding.`,
      EXIT.unavailable,
    )
  throw new CliError(
    '--type: no typing tool found. Install wtype (Wayland), xdotool (X11) or ydotool (any, needs ydotoold).',
    EXIT.unavailable,
  )
}

/** Presses BackSpace `count` times with a typing tool (a live correction). */
export async function pressBackspaces(
  tool: DesktopTool,
  count: number,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  if (count <= 0 || !tool.backspaces) return
  // Bounded arguments per call: a long correction goes in several.
  for (let left = count; left > 0; left -= 200) {
    await runTool({ ...tool, args: tool.backspaces(Math.min(left, 200)) }, '', env)
  }
}

/**
 * Runs the tool with `text` on stdin. Clipboard tools fork a process that keeps serving the clipboard and
 * holds our pipes open, so completion is the tool's exit, not the pipes' close.
 */
export async function runTool(tool: DesktopTool, text: string, env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(tool.command, tool.args, { stdio: ['pipe', 'ignore', 'pipe'], env })
  let stderr = ''
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (chunk: string) => {
    if (stderr.length < MAX_STDERR) stderr += chunk
  })
  child.stdin?.on('error', () => {})
  child.stdin?.end(text)
  const result = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }))
    child.once('exit', (code) => resolve({ code }))
  })
  if (result.error || result.code !== 0) {
    // A failed tool forked nothing: its stderr ends right away.
    const waited = new AbortController()
    await Promise.race([once(child, 'close'), delay(500, undefined, { signal: waited.signal })]).catch(
      () => {},
    )
    waited.abort()
    child.stderr?.destroy()
    const reason = result.error?.message ?? (stderr.trim().split('\n').pop() || `exit status ${result.code}`)
    throw new CliError(`${tool.name} failed: ${reason}`)
  }
  child.stderr?.destroy()
}
