/**
 * Whether a version (`1.2.3`) is in a range written as npm writes them, in the forms plugin authors use:
 * `1.2.3`, `^1.2.3`, `~1.2.3`, `1`, `1.x`, `1.2.x`, `*`, `>=1.2.3`, `<2.0.0`, comparators joined by spaces
 * (all must hold) and alternatives joined by `||`. Null for a range it cannot read, so that a typo is
 * reported as one rather than as a mismatch. Pre-release tags are not part of any range here.
 */
type Version = [number, number, number]

const PARTIAL = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/

function parseVersion(text: string): Version | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text.trim())
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number)
  return 0
}

/** [lowest included, lowest excluded] of a partial version, a caret or a tilde range. */
function bounds(operator: '' | '^' | '~', partial: string): [Version, Version] | null {
  const m = PARTIAL.exec(partial)
  if (!m) return null
  const wild = (part: string | undefined) => part === undefined || part === 'x' || part === '*'
  const major = Number(m[1])
  if (wild(m[2]))
    return [
      [major, 0, 0],
      [major + 1, 0, 0],
    ]
  const minor = Number(m[2])
  if (wild(m[3])) {
    if (operator === '^' && major > 0)
      return [
        [major, minor, 0],
        [major + 1, 0, 0],
      ]
    return [
      [major, minor, 0],
      [major, minor + 1, 0],
    ]
  }
  const low: Version = [major, minor, Number(m[3])]
  if (operator === '') return [low, [major, minor, low[2] + 1]]
  if (operator === '~') return [low, [major, minor + 1, 0]]
  if (major > 0) return [low, [major + 1, 0, 0]]
  if (minor > 0) return [low, [0, minor + 1, 0]]
  return [low, [0, 0, low[2] + 1]]
}

function comparator(token: string, version: Version): boolean | null {
  if (token === '*' || token === 'x') return true
  const op = /^(>=|<=|>|<|=)(.+)$/.exec(token)
  if (op) {
    const other = parseVersion(op[2] as string)
    if (!other) return null
    const order = compare(version, other)
    return { '>=': order >= 0, '<=': order <= 0, '>': order > 0, '<': order < 0, '=': order === 0 }[
      op[1] as '>=' | '<=' | '>' | '<' | '='
    ]
  }
  const operator = token[0] === '^' || token[0] === '~' ? token[0] : ''
  const range = bounds(operator, operator === '' ? token : token.slice(1))
  if (!range) return null
  return compare(version, range[0]) >= 0 && compare(version, range[1]) < 0
}

export function satisfies(versionText: string, range: string): boolean | null {
  const version = parseVersion(versionText)
  if (!version || range.trim() === '') return null
  let any = false
  for (const alternative of range.split('||')) {
    const tokens = alternative.trim().split(/\s+/)
    if (tokens.length === 0 || tokens[0] === '') return null
    let all = true
    for (const token of tokens) {
      const holds = comparator(token, version)
      if (holds === null) return null
      all &&= holds
    }
    any ||= all
  }
  return any
}
