/** Byte counts as people read them, for model sizes and disk space. */

/** `532 B`, `1.2 kB`, `48.3 MB`, `1.80 GB` (decimal units, as model sizes are usually quoted). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${Math.round(bytes)} B`
  const units = ['kB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 'B'
  for (const next of units) {
    if (value < 1000) break
    value /= 1000
    unit = next
  }
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ${unit}`
}
