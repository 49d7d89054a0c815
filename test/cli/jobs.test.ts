/**
 * `dictum jobs` against a running service (a real app listening on loopback, the fixture echo engine):
 * submit with --wait and its progress lines, list by state, status, cancel, and the errors when no service
 * runs or an id is unknown.
 */
import { copyFileSync } from 'node:fs'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import t, { type Test } from 'tap'
import { main } from '../../cli/index.ts'
import { tempDir } from '../helpers/build.ts'
import { listen } from '../helpers/http.ts'
import { freePort } from '../helpers/serve.ts'
import { buildJobsApp, JFK } from '../jobs/helpers.ts'

async function run(t: Test, args: string[]) {
  const home = tempDir(t)
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const out: string[] = []
  const err: string[] = []
  stdout.on('data', (c) => out.push(String(c)))
  stderr.on('data', (c) => err.push(String(c)))
  const code = await main(args, {
    stdout,
    stderr,
    isTTY: false,
    stderrIsTTY: false,
    env: { XDG_CONFIG_HOME: home, DICTUM_DATA_DIR: home },
    cwd: home,
  })
  return { code, stdout: out.join(''), stderr: err.join('') }
}
t.test('submit --wait, list, status, cancel through the service', async (t) => {
  const app = await buildJobsApp(t)
  const server = `http://127.0.0.1:${await listen(t, app)}`
  const folder = tempDir(t)
  for (const name of ['one.wav', 'two.wav']) copyFileSync(JFK, path.join(folder, name))

  const submitted = await run(t, [
    'jobs',
    'submit',
    '--server',
    server,
    folder,
    JFK,
    '-f',
    'text',
    '-f',
    'srt',
    '--wait',
  ])
  t.equal(submitted.code, 0, submitted.stderr)
  const lines = submitted.stdout.trim().split('\n')
  t.equal(lines.length, 3, 'one line per job')
  for (const line of lines)
    t.match(
      line,
      /^job_\w{20} {2}completed {2}100% {2}\/.+\.wav {2}→ job_\w{20}\/\w+\.txt, job_\w{20}\/\w+\.srt$/,
    )
  t.match(submitted.stderr, /jobs.*3\/3/, 'progress lines on stderr')

  const listed = await run(t, ['jobs', 'list', '--server', server, '--state', 'completed', '--json'])
  t.equal(listed.code, 0)
  t.equal(JSON.parse(listed.stdout).count, 3)
  const empty = await run(t, ['jobs', 'list', '--server', server, '--state', 'queued'])
  t.equal(empty.stdout, '')

  const workers = await run(t, ['jobs', 'workers', '--server', server])
  t.equal(workers.code, 0, workers.stderr)
  t.match(
    workers.stdout,
    /^\S+:\d+ {2}fixture-echo {2}0\/\d+ running {2}3 done {2}[\d.]+ s of audio {2}[\d.]+× real time\n$/,
    'the service runs the jobs itself: one line, its three runs counted',
  )

  const id = (lines[0] as string).split(' ')[0] as string
  const status = await run(t, ['jobs', 'status', '--server', server, id])
  t.equal(status.code, 0)
  t.match(status.stdout, new RegExp(`^id        ${id}\\nstate     completed \\(100%, attempt 1 of 3\\)`))
  t.match(status.stdout, /text {6}heard \d+ samples/)

  const cancelled = await run(t, ['jobs', 'cancel', '--server', server, id])
  t.equal(cancelled.code, 0)
  t.match(cancelled.stdout, /completed/, 'a finished job stays as it was')

  const unknown = await run(t, ['jobs', 'status', '--server', server, 'job_nope'])
  t.equal(unknown.code, 1)
  t.equal(unknown.stderr, 'dictum: Job not found: job_nope.\n')

  const bad = await run(t, ['jobs', 'submit', '--server', server, 'relative/missing.wav'])
  t.equal(bad.code, 1)
  t.match(bad.stderr, /Audio file not found: .*relative\/missing\.wav\./, 'relative to the working folder')

  const same = await run(t, ['jobs', 'submit', '--server', server, '--key', 'k1', JFK])
  const again = await run(t, ['jobs', 'submit', '--server', server, '--key', 'k1', JFK])
  t.equal(again.stdout.split(' ')[0], same.stdout.split(' ')[0], '--key: the same job')
})

t.test('without a running service jobs says so (exit 3)', async (t) => {
  const port = await freePort()
  const none = await run(t, ['jobs', 'list', '--port', String(port)])
  t.equal(none.code, 3)
  t.match(none.stderr, /no dictum service is running: jobs run in the service/)
  const usage = await run(t, ['jobs', 'frobnicate'])
  t.equal(usage.code, 2)
  t.match(usage.stderr, /unknown jobs command "frobnicate"/)
})
