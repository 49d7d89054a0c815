/**
 * Every error code of the app: the core's (errors/catalogue.ts) and each feature's own (its errors.ts, named
 * in its Feature), composed from the server's list of features as the app composes them. Each is well
 * formed and listed in docs/errors.md with its status, as fastify's errors test checks its docs.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { DictumError, errorBody, errors } from '../../errors/catalogue.ts'
import { registeredCodes } from '../../errors/dictum-error.ts'
import { errorTables } from '../../kernel/container.ts'
import { FEATURES } from '../../server/app.ts'
import { repoRoot } from '../helpers/fixtures.ts'

const TABLES = errorTables(FEATURES)
const ALL = TABLES.flatMap((table) =>
  Object.entries(table.entries).map(([code, entry]) => ({ code, entry, owner: table.owner })),
)

t.test('every code: unique and upper snake case, statuses valid, messages are sentences', async (t) => {
  const codes = ALL.map((e) => e.code)
  t.equal(new Set(codes).size, codes.length, 'no code in two tables')
  t.ok(TABLES.length > 1, 'features declare codes of their own')
  for (const { code, entry } of ALL) {
    t.match(code, /^[A-Z][A-Z0-9_]+$/, code)
    t.ok(entry.status >= 400 && entry.status <= 599, `${code} status ${entry.status}`)
    const message = typeof entry.message === 'string' ? entry.message : entry.message('detail.')
    t.match(message, /\.$/, `${code} message ends with a full stop`)
    const error = new DictumError(code as DictumError['code'], message)
    t.equal(error.statusCode, entry.status, `${code}: an error read back by code keeps its status`)
    t.same(Object.keys(errorBody(error)).sort(), ['code', 'error'])
  }
})

t.test("every registered code belongs to the core or to a feature of the server's list", async (t) => {
  const owned = new Set(ALL.map((e) => e.code))
  t.same(
    registeredCodes().filter(({ code }) => !owned.has(code)),
    [],
    'a code declared by a module no feature names would escape the docs check',
  )
})

t.test('docs/errors.md lists every code with its status, and no code that does not exist', async (t) => {
  const doc = readFileSync(path.join(repoRoot, 'docs/errors.md'), 'utf8')
  const rows = new Map(
    [...doc.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1] as string, Number(m[2])]),
  )
  for (const { code, entry, owner } of ALL) {
    t.equal(
      rows.get(code),
      entry.status,
      `${code} (${owner}) is in docs/errors.md with status ${entry.status}`,
    )
  }
  const known = new Set(ALL.map((e) => e.code))
  t.same(
    [...rows.keys()].filter((code) => !known.has(code)),
    [],
    'no stale row',
  )
})

t.test('messages the spec names are word for word', async (t) => {
  const exact: Record<string, [string, number]> = {
    MISSING_AUDIO: ['Missing audio path or audioBase64.', 400],
    MISSING_AUDIO_BODY: ['Missing audio body.', 400],
    INVALID_AUDIO_JSON: ['Invalid JSON audio payload.', 400],
    REQUEST_TOO_LARGE: ['Request too large.', 413],
    INVALID_TEXT_JSON: ['Invalid JSON text payload.', 400],
    TEXT_NOT_UTF8: ['Text body must be UTF-8.', 400],
    NO_AI_PROVIDER: ['No AI provider is configured.', 400],
    ROUTE_NOT_FOUND: ['Route not found.', 404],
    METHOD_NOT_ALLOWED: ['Method not allowed.', 405],
  }
  for (const [code, [message, status]] of Object.entries(exact)) {
    const found = ALL.find((e) => e.code === code)
    t.equal(found?.entry.message, message, code)
    t.equal(found?.entry.status, status, code)
  }
  t.match(errors.AUDIO_DECODE_FAILED('bad header.').message, /^Could not decode audio: bad header\.$/)
})
