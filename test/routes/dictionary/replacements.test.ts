import t from 'tap'
import { build, injectJson } from '../../helpers/build.ts'

const URL = '/v1/dictionary/replacements'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('empty list at first, with the list envelope', async (t) => {
  const app = await build(t)
  const res = await injectJson(app, 'GET', URL)
  t.equal(res.status, 200)
  t.same(res.body, { count: 0, items: [] })
})

t.test('single-entry form appends a rule with a new UUID v4, normalising triggers', async (t) => {
  const app = await build(t)
  const res = await injectJson(app, 'POST', URL, {
    triggers: ['  Open  AI ', 'open ai', '', 'OpenAI'],
    replacement: 'OpenAI',
  })
  t.equal(res.status, 200)
  t.equal(res.body.count, 1)
  t.match(res.body.items[0].id, UUID)
  t.same(
    res.body.items[0].triggers,
    ['open ai', 'openai'],
    'trimmed, lower-cased, de-duplicated, blanks gone',
  )
  t.equal(res.body.items[0].replacement, 'OpenAI')
  t.same((await injectJson(app, 'GET', URL)).body, res.body, 'GET returns what POST returned')
})

t.test(
  'append updates a rule in place by case-insensitive replacement, keeping id and position',
  async (t) => {
    const app = await build(t)
    const first = await injectJson(app, 'POST', URL, {
      entries: [
        { triggers: ['gpt'], replacement: 'GPT' },
        { triggers: ['k eight s'], replacement: 'Kubernetes' },
      ],
    })
    const [gpt, k8s] = first.body.items
    const res = await injectJson(app, 'POST', URL, {
      triggers: ['kube', 'k eight s'],
      replacement: 'KUBERNETES',
    })
    t.equal(res.body.count, 2)
    t.equal(res.body.items[0].id, gpt.id)
    t.equal(res.body.items[1].id, k8s.id, 'id kept')
    t.same(res.body.items[1].triggers, ['kube', 'k eight s'])
    t.equal(res.body.items[1].replacement, 'KUBERNETES')
  },
)

t.test(
  'append matches by id first, and an entry naming an id gives that id to the rule it updates',
  async (t) => {
    const app = await build(t)
    const first = await injectJson(app, 'POST', URL, {
      entries: [
        { triggers: ['a'], replacement: 'Alpha' },
        { triggers: ['b'], replacement: 'Beta' },
      ],
    })
    const [alpha] = first.body.items
    const byId = await injectJson(app, 'POST', URL, {
      entries: [{ id: alpha.id, triggers: ['x'], replacement: 'Beta' }],
    })
    t.equal(byId.body.count, 2, 'matched by id, not appended')
    t.same(byId.body.items[0], { id: alpha.id, triggers: ['x'], replacement: 'Beta' })

    const named = '0e6fbb8c-9d5e-4d9f-8b8a-2b8e0d1f7a11'
    const renamed = await injectJson(app, 'POST', URL, {
      entries: [{ id: named, triggers: ['g'], replacement: 'gamma' }],
    })
    t.equal(renamed.body.count, 3, 'an unknown id in append mode creates the rule with that id')
    t.equal(renamed.body.items[2].id, named)
    const upper = named.toUpperCase()
    const again = await injectJson(app, 'POST', URL, {
      entries: [{ id: upper, triggers: ['gg'], replacement: 'Gamma' }],
    })
    t.equal(again.body.count, 3, 'ids compare case-insensitively')
    t.equal(again.body.items[2].replacement, 'Gamma')
  },
)

t.test('replace mode discards everything and stores only the given entries', async (t) => {
  const app = await build(t)
  await injectJson(app, 'POST', URL, {
    entries: [
      { triggers: ['a'], replacement: 'A' },
      { triggers: ['b'], replacement: 'B' },
    ],
  })
  const res = await injectJson(app, 'POST', URL, {
    mode: 'replace',
    entries: [{ triggers: ['c'], replacement: 'C' }],
  })
  t.equal(res.body.count, 1)
  t.equal(res.body.items[0].replacement, 'C')
  const cleared = await injectJson(app, 'POST', URL, { mode: 'replace', entries: [] })
  t.same(cleared.body, { count: 0, items: [] }, 'replace with no entries clears the list')
})

t.test('entries win over the single-entry fields when both are present', async (t) => {
  const app = await build(t)
  const res = await injectJson(app, 'POST', URL, {
    triggers: ['single'],
    replacement: 'Single',
    entries: [{ triggers: ['multi'], replacement: 'Multi' }],
  })
  t.equal(res.body.count, 1)
  t.equal(res.body.items[0].replacement, 'Multi')
})

t.test('validation is atomic and names the bad entry; nothing is stored', async (t) => {
  const app = await build(t)
  await injectJson(app, 'POST', URL, { triggers: ['keep'], replacement: 'Keep' })
  const cases: Array<[unknown, RegExp]> = [
    [{}, /expected "entries", or "triggers" and "replacement"/],
    [{ triggers: ['x'] }, /expected "entries", or "triggers" and "replacement"/],
    [{ mode: 'merge', triggers: ['x'], replacement: 'X' }, /mode must be "append" or "replace"/],
    [
      {
        entries: [
          { triggers: ['ok'], replacement: 'Ok' },
          { triggers: ['  ', ''], replacement: 'Bad' },
        ],
      },
      /entries\[1\]\.triggers must contain at least one non-blank phrase/,
    ],
    [
      {
        entries: [
          { triggers: ['ok'], replacement: 'Ok' },
          { triggers: ['x'], replacement: '   ' },
        ],
      },
      /entries\[1\]\.replacement must not be blank/,
    ],
    [{ entries: [{ triggers: 'x', replacement: 'X' }] }, /entries\[0\]\.triggers: expected array/],
    [{ entries: [{ triggers: ['x', 3], replacement: 'X' }] }, /entries\[0\]\.triggers\[1\]: expected string/],
    [
      { entries: [{ id: 'not-a-uuid', triggers: ['x'], replacement: 'X' }] },
      /entries\[0\]\.id must be a UUID/,
    ],
    [{ entries: 'x' }, /entries: expected array/],
    [[1, 2], /the body must be a JSON object/],
    [{ entries: [{ triggers: ['x'.repeat(201)], replacement: 'X' }] }, /longer than 200 characters/],
  ]
  for (const [payload, message] of cases) {
    const res = await injectJson(app, 'POST', URL, payload)
    t.equal(res.status, 400, JSON.stringify(payload).slice(0, 80))
    t.equal(res.body.code, 'INVALID_REPLACEMENTS')
    t.match(res.body.error, /^Invalid replacements payload: /)
    t.match(res.body.error, message)
  }
  const list = await injectJson(app, 'GET', URL)
  t.equal(list.body.count, 1, 'nothing stored by the rejected requests')
  t.equal(list.body.items[0].replacement, 'Keep')
})

t.test('malformed JSON gets a 400 naming the payload', async (t) => {
  const app = await build(t)
  for (const payload of ['{"triggers": [', '', 'null x']) {
    const res = await injectJson(app, 'POST', URL, payload)
    t.equal(res.status, 400)
    t.same(res.body, { error: 'Invalid JSON replacements payload.', code: 'INVALID_REPLACEMENTS_JSON' })
  }
})

t.test('at most 1000 rules: over that, 400 and nothing stored', async (t) => {
  const app = await build(t)
  const entries = Array.from({ length: 1000 }, (_, i) => ({ triggers: [`t${i}`], replacement: `R${i}` }))
  const ok = await injectJson(app, 'POST', URL, { entries })
  t.equal(ok.body.count, 1000)
  const over = await injectJson(app, 'POST', URL, { triggers: ['one more'], replacement: 'One more' })
  t.equal(over.status, 400)
  t.equal(over.body.code, 'TOO_MANY_REPLACEMENTS')
  t.match(over.body.error, /1001.*at most 1000/)
  t.equal((await injectJson(app, 'GET', URL)).body.count, 1000)
  const update = await injectJson(app, 'POST', URL, { triggers: ['changed'], replacement: 'r5' })
  t.equal(update.status, 200, 'an update in place is fine at the limit')
  t.same(update.body.items[5].triggers, ['changed'])
})
