/** `dictum dictionary export|import`: round trip, append and replace, and atomic rejection of a bad file. */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { fixtureConfig, setup } from './run-cli.ts'

const DICTIONARY = {
  replacements: [
    { triggers: ['gonna', 'gona'], replacement: 'going to' },
    { id: '5b0c3c39-54c4-4f7c-9f0e-4bbd3c7f2a11', triggers: ['Dictum App'], replacement: 'dictum' },
  ],
  customWords: [{ text: 'Kubernetes', weight: 5, aliases: ['cube rnetes'] }, { text: 'Anthropic' }],
}

t.test('export and import round trip (files and stdin/stdout), append updates in place', async (t) => {
  const user = setup(t, fixtureConfig())
  const source = path.join(user.dir, 'source.json')
  writeFileSync(source, JSON.stringify(DICTIONARY))
  const imported = await user.run(['dictionary', 'import', source])
  t.equal(imported.code, 0, imported.stderr)
  t.match(imported.stderr, '2 replacement rules and 2 custom words')

  const exportFile = path.join(user.dir, 'export.json')
  const exported = await user.run(['dictionary', 'export', exportFile])
  t.equal(exported.code, 0, exported.stderr)
  const data = JSON.parse(readFileSync(exportFile, 'utf8'))
  t.same(Object.keys(data), ['replacements', 'customWords'])
  t.same(
    data.replacements.map((r: { triggers: string[]; replacement: string }) => [r.triggers, r.replacement]),
    [
      [['gonna', 'gona'], 'going to'],
      [['dictum app'], 'dictum'],
    ],
    'triggers normalised as the API does',
  )
  t.equal(data.replacements[1].id, DICTIONARY.replacements[1]!.id, 'a given id is kept')
  t.match(data.replacements[0].id, /^[0-9a-f-]{36}$/, 'a new rule gets an id')
  t.same(
    data.customWords.map(({ id, ...word }: { id: string }) => (/^[0-9a-f-]{36}$/.test(id) ? word : id)),
    [
      { text: 'Kubernetes', weight: 5, aliases: ['cube rnetes'] },
      { text: 'Anthropic', weight: null, aliases: [] },
    ],
    'each word with an id',
  )

  const stdout = await user.run(['dictionary', 'export', '-'])
  t.same(JSON.parse(stdout.stdout), data, 'export to stdout is the same document')

  // Into a second, empty dictionary through stdin: the same dictionary comes out.
  const other = setup(t, fixtureConfig())
  t.equal((await other.run(['dictionary', 'import', '-'], { input: stdout.stdout })).code, 0)
  t.same(JSON.parse((await other.run(['dictionary', 'export', '-'])).stdout), data, 'round trip is lossless')

  // append (the API's word; 'merge', the option's former name, is the same): the same replacement updates
  // its rule where it stands, a new one is appended.
  const update = path.join(user.dir, 'update.json')
  writeFileSync(
    update,
    JSON.stringify({
      replacements: [
        { triggers: ['gonna'], replacement: 'Going To' },
        { triggers: ['wanna'], replacement: 'want to' },
      ],
    }),
  )
  const merged = await user.run(['dictionary', 'import', update, '--mode', 'append', '--json'])
  t.equal(merged.code, 0, merged.stderr)
  const after = JSON.parse(merged.stdout)
  t.same(
    after.replacements.map((r: { replacement: string }) => r.replacement),
    ['Going To', 'dictum', 'want to'],
  )
  t.equal(after.replacements[0].id, data.replacements[0].id, 'updated in place, id kept')
  t.equal(after.customWords.length, 2, 'custom words untouched')
  const again = await user.run(['dictionary', 'import', update, '--mode', 'merge', '--json'])
  t.same(JSON.parse(again.stdout), after, "'merge', the former name of append, updates the same entries")
})

t.test('replace mode swaps both lists', async (t) => {
  const user = setup(t, fixtureConfig())
  const source = path.join(user.dir, 'source.json')
  writeFileSync(source, JSON.stringify(DICTIONARY))
  t.equal((await user.run(['dictionary', 'import', source])).code, 0)
  const next = path.join(user.dir, 'next.json')
  writeFileSync(
    next,
    JSON.stringify({ replacements: [{ triggers: ['btw'], replacement: 'by the way' }], customWords: [] }),
  )
  const replaced = await user.run(['dictionary', 'import', next, '--mode', 'replace'])
  t.equal(replaced.code, 0, replaced.stderr)
  const data = JSON.parse((await user.run(['dictionary', 'export', '-'])).stdout)
  t.same(
    data.replacements.map((r: { replacement: string }) => r.replacement),
    ['by the way'],
  )
  t.same(data.customWords, [])
})

t.test('a bad file changes nothing and the error names the bad entry', async (t) => {
  const user = setup(t, fixtureConfig())
  const source = path.join(user.dir, 'source.json')
  writeFileSync(source, JSON.stringify(DICTIONARY))
  t.equal((await user.run(['dictionary', 'import', source])).code, 0)
  const before = (await user.run(['dictionary', 'export', '-'])).stdout

  const write = (name: string, content: unknown) => {
    const file = path.join(user.dir, name)
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content))
    return file
  }
  // A good replacement list, then a bad custom word: neither list may change.
  const badWord = write('bad-word.json', {
    replacements: [{ triggers: ['new'], replacement: 'rule' }],
    customWords: [{ text: 'fine' }, { text: 'x', weight: 500 }],
  })
  const badRule = write('bad-rule.json', {
    replacements: [
      { triggers: ['ok'], replacement: 'fine' },
      { triggers: ['  '], replacement: 'oops' },
    ],
  })
  const cases: [string[], RegExp][] = [
    [['dictionary', 'import', badWord], /bad-word\.json: Invalid custom words payload: customWords\[1\]/],
    [['dictionary', 'import', badRule, '--mode', 'replace'], /needs both "replacements" and "customWords"/],
    [['dictionary', 'import', badRule], /bad-rule\.json: Invalid replacements payload: replacements\[1\]/],
    [['dictionary', 'import', write('broken.json', '{"replacements": [')], /broken\.json: invalid JSON/],
    [['dictionary', 'import', write('list.json', [])], /expected a JSON object/],
    [['dictionary', 'import', write('other.json', { rules: [] })], /unknown key "rules"/],
    [
      ['dictionary', 'import', path.join(user.dir, 'missing.json')],
      /Could not read .*missing\.json: no such file/,
    ],
  ]
  for (const [args, message] of cases) {
    const result = await user.run(args)
    t.equal(result.code, 1, `${args.join(' ')}: exit 1`)
    t.match(result.stderr, message)
  }
  t.equal((await user.run(['dictionary', 'export', '-'])).stdout, before, 'the dictionary is unchanged')
})

t.test('usage errors exit 2', async (t) => {
  const user = setup(t, fixtureConfig())
  const results = await Promise.all([
    user.run(['dictionary']),
    user.run(['dictionary', 'frob']),
    user.run(['dictionary', 'import']),
    user.run(['dictionary', 'import', 'x.json', '--mode', 'add']),
    user.run(['dictionary', 'export', 'x.json', '--mode', 'merge']),
    user.run(['dictionary', 'export', 'a.json', 'b.json']),
  ])
  for (const result of results) t.equal(result.code, 2, result.stderr)
  t.match(results[3]!.stderr, 'Unknown --mode "add" (use append or replace)')
})
