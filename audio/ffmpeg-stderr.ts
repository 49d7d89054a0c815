/** Turns ffmpeg's stderr into one short reason fit for an API error (no addresses, no internal paths). */

const MAX_REASON = 200

export function ffmpegReason(stderr: string, inputNames: readonly string[]): string | undefined {
  for (const raw of stderr.split(/\r?\n/)) {
    let line = raw.trim()
    if (!line || line.startsWith('Last message repeated')) continue
    line = line.replace(/^\[[^\]]*@ 0x[0-9a-f]+\]\s*/i, '')
    for (const name of inputNames) if (name) line = line.split(name).join('input')
    line = line.replace(/^(?:input|pipe:\d?):\s*/, '')
    if (!line) continue
    if (line.length > MAX_REASON) line = `${line.slice(0, MAX_REASON - 3)}...`
    return /[.!?]$/.test(line) ? line : `${line}.`
  }
  return undefined
}
