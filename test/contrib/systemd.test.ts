/**
 * The systemd user unit in contrib/ is valid as systemd reads it (`systemd-analyze verify --user`): no error
 * and no warning. Its ExecStart names where `npm install -g` puts dictum; here it points at this checkout's
 * bin so that the command exists.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { tempDir } from '../cli/run-cli.ts'
import { repoRoot } from '../helpers/fixtures.ts'

const run = promisify(execFile)
const UNIT = path.join(repoRoot, 'contrib/systemd/dictum.service')
const analyze = await run('systemd-analyze', ['--version']).then(
  () => true,
  () => false,
)

async function verify(dir: string, text: string): Promise<{ code: number; stderr: string }> {
  const file = path.join(dir, 'dictum.service')
  writeFileSync(file, text)
  const runtime = path.join(dir, 'runtime')
  mkdirSync(runtime, { recursive: true, mode: 0o700 })
  return run('systemd-analyze', ['verify', '--user', file], {
    env: { ...process.env, XDG_RUNTIME_DIR: runtime },
  })
    .then(({ stderr }) => ({ code: 0, stderr }))
    .catch((err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }))
}

t.test(
  'contrib/systemd/dictum.service passes systemd-analyze verify',
  { skip: analyze ? false : 'systemd-analyze is not installed (Debian package systemd)' },
  async (t) => {
    const dir = tempDir(t)
    const unit = readFileSync(UNIT, 'utf8')
    t.match(unit, /^ExecStart=\/usr\/local\/bin\/dictum serve$/m, 'runs the installed dictum serve')
    t.match(unit, /^KillSignal=SIGTERM$/m)
    const local = unit.replace(/^ExecStart=\S+/m, `ExecStart=${path.join(repoRoot, 'bin/dictum.js')}`)
    const verified = await verify(dir, local)
    t.equal(verified.code, 0, verified.stderr)
    t.equal(verified.stderr.trim(), '', 'no warnings')
    const broken = await verify(dir, local.replace('Restart=on-failure', 'Restart=sometimes'))
    t.match(broken.stderr, /restart specifier/, 'the check does report a broken unit')
  },
)
