/**
 * `dictum dictate --notify`: desktop notifications through `notify-send` (libnotify) when it is installed,
 * so a dictation started from a key binding, with no terminal, shows that it listens, transcribes, and what
 * came of it. Each one replaces the previous (the same stack tag), so they do not pile up.
 */
import { spawn } from 'node:child_process'
import { findExecutable } from './desktop-tools.ts'
import type { CliIO } from './io.ts'

export type Stage = 'listening' | 'transcribing' | 'done' | 'error'

const SUMMARY: Record<Stage, string> = {
  listening: 'dictum: listening…',
  transcribing: 'dictum: transcribing…',
  done: 'dictum: done',
  error: 'dictum: dictation failed',
}

/** Longest body shown: a notification is a glance, the text is in the window and the history. */
const MAX_BODY = 200

export interface Notifier {
  notify(stage: Stage, body?: string): void
  /** Waits for the notifications sent so far (a short-lived process should not exit before them). */
  flush(): Promise<void>
}

export function desktopNotifier(io: CliIO, enabled: boolean): Notifier {
  const command = enabled ? findExecutable('notify-send', io.env) : null
  if (enabled && command === null)
    io.stderr.write(
      'dictum: --notify: notify-send was not found (install libnotify-bin); no notifications.\n',
    )
  let sent: Promise<void> = Promise.resolve()
  return {
    notify(stage, body = '') {
      if (command === null) return
      const text = body.length > MAX_BODY ? `${body.slice(0, MAX_BODY - 1)}…` : body
      const args = [
        '--app-name=dictum',
        `--urgency=${stage === 'error' ? 'critical' : 'low'}`,
        '--hint=string:x-dunst-stack-tag:dictum',
        '--hint=string:x-canonical-private-synchronous:dictum',
        '--',
        SUMMARY[stage],
        ...(text === '' ? [] : [text]),
      ]
      const previous = sent
      sent = previous.then(
        () =>
          new Promise<void>((resolve) => {
            const child = spawn(command, args, { stdio: 'ignore', env: io.env })
            child.once('error', () => resolve())
            child.once('exit', () => resolve())
          }),
      )
    },
    flush: () => sent,
  }
}
