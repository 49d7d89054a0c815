/**
 * `dictum dictate`: records from the microphone (or `--input FILE`) until a pause, runs the dictation
 * pipeline of POST /v1/dictate (engine, replacements, editing by voice, AI enhancement, history), prints the
 * text, and optionally copies it to the clipboard or types it into the focused window. This module parses the
 * options and drives the key-binding modes; the recording itself (dictate-session.ts) is loaded only when one
 * starts, so `--end` (a key release) answers at once.
 */
import { usageError } from './cli-error.ts'
import {
  DEFAULT_LIVE_SILENCE,
  DEFAULT_MAX_SECONDS,
  DEFAULT_SILENCE,
  DEFAULT_TYPE_DELAY_MS,
  parseOptions,
} from './dictate-options.ts'
import { beginRecording, endRecording, resolveToggle, type ShortcutMode } from './dictate-shortcut.ts'
import { type CliIO, EXIT } from './io.ts'
import { desktopNotifier } from './notify.ts'
import { GLOBAL_HELP } from './options.ts'
import { SERVER_HELP } from './server-client.ts'

export const DICTATE_HELP = `Usage: dictum dictate [options]

Records from the microphone until you pause, then transcribes it like POST /v1/dictate
(engine, dictionary replacements, AI enhancement when ai.provider is set), stores it in the
history and prints the text. When a dictum service is running (on the configured address, or
--server), the recording is sent there and uses its loaded engine. Ctrl-C stops the recording early and keeps what was said; a
second Ctrl-C aborts.

From a key binding (docs/desktop.md): --toggle starts a recording and the next --toggle stops it;
--begin (key press) and --end (key release) do the same for hold-to-talk. The recording goes on until
it is stopped (no stop at a pause), then the text is handed on as --type / --copy say. One recording at
a time per user; --end waits for the text and exits with the recording's status.

With --live, the text appears while you speak: each utterance (ended by a pause) is shown as it
grows, stored in history when it ends, and the whole text is printed when you stop (Ctrl-C, the
end of --input, or --max-seconds). A file given with --input is read in real time, as if spoken.

Options:
  -l, --live            Live dictation: text while you speak, until Ctrl-C (or --end); with
                        --type, typed as it comes and corrected in place
  --toggle              Start a recording, or stop the one running (one key binding)
  --begin               Start a recording that runs until --end (key press of hold-to-talk)
  --end                 Stop the running recording and wait for its text (key release)
  --notify              Desktop notifications (notify-send): listening, transcribing, done, errors
  --silence SECONDS     Pause that ends the recording, after speech (default ${DEFAULT_SILENCE});
                        with --live, the pause that ends an utterance (default ${DEFAULT_LIVE_SILENCE})
  --max-seconds N       Longest recording (default ${DEFAULT_MAX_SECONDS})
  --backend NAME        ffmpeg input device: pulse (PulseAudio, PipeWire), alsa, avfoundation
                        (macOS); default auto: pulse when its socket exists, else alsa
  --device NAME         Input device (default: "default"; avfoundation ":0")
  -i, --input FILE      Read this audio file instead of the microphone, with the same
                        stop-at-pause logic
  -c, --copy            Copy the text to the clipboard (wl-copy, xclip, xsel or pbcopy)
  -t, --type            Type the text into the focused window (wtype, xdotool or ydotool)
  --type-delay MS       Pause between typed keys (default ${DEFAULT_TYPE_DELAY_MS}; 12 if an application drops keys)
  --app-name NAME       Application name stored with the history entry
  --window-title TEXT   Window title stored with the history entry
  --json                Print the history entry as JSON instead of the text
  -v, --verbose         Status lines on stderr (listening, transcribing) even when not a terminal
${SERVER_HELP}

Exit status: 0 ok, 1 failure (nothing recognised, engine error, tool failed), 2 usage error,
3 unavailable (microphone, speech engine, clipboard or typing tool), 130 aborted.

${GLOBAL_HELP}
`

export async function dictateCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parseOptions(args)
  if (values.help) {
    io.stdout.write(DICTATE_HELP)
    return EXIT.ok
  }
  const modes = (['toggle', 'begin', 'end'] as const).filter((mode) => values[mode] === true)
  if (modes.length > 1) throw usageError(`--${modes.join(' and --')} contradict each other: use one.`)
  const shortcut: ShortcutMode | undefined = modes[0]
  // --end (or a --toggle that ends) only signals the recorder: no config, no engine, at once.
  if (shortcut !== undefined && resolveToggle(shortcut, io.env) === 'end') return endRecording(io)
  if (values.input !== undefined && (values.backend !== undefined || values.device !== undefined))
    throw usageError('--input replaces the microphone: it cannot be used with --backend or --device.')
  const notifier = desktopNotifier(io, values.notify === true)
  try {
    const stop = new AbortController()
    const { dictate } = await import('./dictate-session.ts')
    const run = () => dictate(values, io, notifier, stop, shortcut !== undefined)
    if (shortcut === undefined) return (await run()).code
    return await beginRecording(io, args, stop, run)
  } catch (err) {
    notifier.notify('error', (err as Error).message)
    throw err
  } finally {
    await notifier.flush()
  }
}
