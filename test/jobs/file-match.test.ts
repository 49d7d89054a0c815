/**
 * Globs of batch submissions (jobs/file-match.ts): what a pattern matches, and that any pattern accepted is
 * matched without backtracking (issue 28 item 3: `*a*a…b` over a name of forty `a` blocked every route for
 * 28 s), and a pattern past the bounds is a clear 400.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { globMatcher, MAX_GLOB_WILDCARDS } from '../../jobs/file-match.ts'
import { injectJson, tempDir } from '../helpers/build.ts'
import { buildJobsApp } from './helpers.ts'

t.test('what a pattern matches', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['*.wav', 'a.wav', true],
    ['*.wav', 'a.mp3', false],
    ['*.wav', 'x/a.wav', false],
    ['?.wav', 'a.wav', true],
    ['?.wav', 'ab.wav', false],
    ['**/*.wav', 'a.wav', true],
    ['**/*.wav', 'x/y/a.wav', true],
    ['**/*.wav', 'x/y/a.mp3', false],
    ['x/**/a.wav', 'x/a.wav', true],
    ['x/**/a.wav', 'x/1/2/a.wav', true],
    ['x/**/a.wav', 'y/1/a.wav', false],
    ['**', 'x/y/z.wav', true],
    ['*a*b', 'aaab', true],
    ['*a*b', 'aaa', false],
    ['a*c?e', 'abbbcde', true],
    ['a*c?e', 'abbbce', false],
    ['[ab].wav', '[ab].wav', true],
    ['[ab].wav', 'a.wav', false],
    ['a.wav', 'abwav', false],
    ['*.wav', 'café.wav', true],
    ['caf?.wav', 'café.wav', true],
    ['🎤?.wav', '🎤x.wav', true],
  ]
  for (const [pattern, relative, expected] of cases) {
    t.equal(
      globMatcher(pattern)(relative),
      expected,
      `${pattern} ${expected ? 'matches' : 'misses'} ${relative}`,
    )
  }
})

t.test('a pattern made to backtrack is answered at once, and one past the bounds is a 400', async (t) => {
  const folder = tempDir(t)
  writeFileSync(path.join(folder, 'a'.repeat(40)), '')
  writeFileSync(path.join(folder, `${'a'.repeat(40)}b.wav`), 'RIFF')
  const app = await buildJobsApp(t)
  // Twenty `*a` and a `b`: as a backtracking RegExp, ~3^10 times the 28 s.
  const hostile = await injectJson(app, 'POST', '/v1/jobs', { glob: `${folder}/${'*a'.repeat(20)}b` })
  t.equal(hostile.status, 400)
  t.equal(hostile.body.code, 'JOB_NO_FILES', 'nothing ends with b')
  const found = await injectJson(app, 'POST', '/v1/jobs', { glob: `${folder}/${'*a'.repeat(20)}b.wav` })
  t.equal(found.status, 201)
  t.equal(found.body.count, 1)
  const tooMany = await injectJson(app, 'POST', '/v1/jobs', {
    glob: `${folder}/${'*a'.repeat(MAX_GLOB_WILDCARDS + 1)}`,
  })
  t.equal(tooMany.status, 400)
  t.same(tooMany.body, {
    error: `Invalid request: glob must be at most 1024 characters with at most ${MAX_GLOB_WILDCARDS} wildcards (it has ${folder.length + 1 + 2 * (MAX_GLOB_WILDCARDS + 1)} and ${MAX_GLOB_WILDCARDS + 1}).`,
    code: 'INVALID_REQUEST',
    param: 'glob',
  })
  const tooLong = await injectJson(app, 'POST', '/v1/jobs', { glob: `${folder}/${'x'.repeat(1100)}*` })
  t.equal(tooLong.status, 400)
  t.match(tooLong.body.error, /glob must be at most 1024 characters/)
})
