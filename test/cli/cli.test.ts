/** The command line's surface: help for every command, exit codes for usage errors, `dictum engines`. */
import path from 'node:path'
import t from 'tap'
import { createEngineRunner } from '../../kernel/engine-runner/index.ts'
import { audioFixturesDir, fixtureConfig, runCli, setup } from './run-cli.ts'

const COMMANDS = ['transcribe', 'dictate', 'history', 'dictionary', 'engines']

t.test('--help: every command prints its usage and exits 0', async (t) => {
  const results = await Promise.all([
    runCli(['--help']),
    ...COMMANDS.map((command) => runCli([command, '--help'])),
    runCli(['dictionary', 'export', '-h']),
  ])
  const [top, ...rest] = results
  t.equal(top!.code, 0)
  for (const command of COMMANDS)
    t.match(top!.stdout, new RegExp(`\\n  ${command} `), `usage lists ${command}`)
  for (const [i, result] of rest.entries()) {
    const command = COMMANDS[i] ?? 'dictionary'
    t.equal(result.code, 0, `${command} --help exits 0`)
    t.match(result.stdout, new RegExp(`^Usage: dictum ${command}`), `${command} --help prints its usage`)
    t.match(result.stdout, '--config FILE', `${command} --help lists the global options`)
    t.equal(result.stderr, '')
  }
})

t.test('usage errors exit 2 with a message on stderr', async (t) => {
  const runs: [string[], RegExp][] = [
    [['transcribe', '--frobnicate', 'x.wav'], /Unknown option '--frobnicate'/],
    [['dictate', '--nope'], /Unknown option '--nope'/],
    [['history', '--limit'], /argument missing|--limit/],
    [['engines', 'extra'], /Unexpected argument 'extra'|positional/i],
    [['dictionary', 'export', '--bogus', '-'], /Unknown option '--bogus'/],
    [['no-such-command'], /unknown command "no-such-command"/],
  ]
  const results = await Promise.all(runs.map(([args]) => runCli(args)))
  for (const [i, result] of results.entries()) {
    const [args, message] = runs[i]!
    t.equal(result.code, 2, `${args.join(' ')}: exit 2`)
    t.match(result.stderr, message)
    t.equal(result.stdout, '')
  }
  t.match(results[0]!.stderr, "Run 'dictum transcribe --help'", 'points to the command help')
})

t.test('engines lists every engine with its status; --json as GET /v1/engines', async (t) => {
  const user = setup(t, fixtureConfig({ label: 'cli' }))
  const [json, text] = await Promise.all([user.run(['engines', '--json']), user.run(['engines'])])
  t.equal(json.code, 0, json.stderr)
  const list = JSON.parse(json.stdout)
  t.equal(list.active, 'fixture-echo')
  t.equal(list.count, list.items.length)
  const fixture = list.items.find((e: { id: string }) => e.id === 'fixture-echo')
  t.match(fixture, { active: true, builtIn: false, status: 'discovered', displayName: 'Fixture Echo (cli)' })
  t.ok(
    list.items.some((e: { id: string; status: string }) => e.id === 'pocketsphinx'),
    'built-in engines too',
  )
  t.equal(text.code, 0)
  t.match(text.stdout, /^\* fixture-echo +discovered +Fixture Echo \(cli\)$/m, 'the active engine is starred')
})

t.test('an invalid config file: exit 1 with every problem', async (t) => {
  const user = setup(t, { speech: { engine: 42 } })
  const result = await user.run(['history'])
  t.equal(result.code, 1)
  t.match(result.stderr, /Invalid configuration:[\s\S]*speech\.engine/)
})

t.test("the engine runner factory given to main() runs the command's engines", async (t) => {
  const user = setup(t, fixtureConfig())
  const made: string[] = []
  const result = await user.run(['transcribe', path.join(audioFixturesDir, 'goforward.wav')], {
    runnerFactory: (options) => {
      made.push(options.engineId)
      return createEngineRunner(options)
    },
  })
  t.equal(result.code, 0, result.stderr)
  t.match(result.stdout, /^heard \d+ samples$/m)
  t.same(made, ['fixture-echo'], 'the command asked the factory for its engine')
})
