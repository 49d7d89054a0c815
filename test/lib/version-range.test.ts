import t from 'tap'
import { satisfies } from '../../lib/version-range.ts'

t.test('the range forms plugin authors write', async (t) => {
  const cases: [string, string, boolean][] = [
    ['1.0.0', '^1.0.0', true],
    ['1.4.2', '^1.0.0', true],
    ['2.0.0', '^1.0.0', false],
    ['1.0.0', '^1.2.0', false],
    ['0.3.1', '^0.3.0', true],
    ['0.4.0', '^0.3.0', false],
    ['0.0.4', '^0.0.3', false],
    ['1.2.9', '~1.2.3', true],
    ['1.3.0', '~1.2.3', false],
    ['1.9.9', '1.x', true],
    ['2.0.0', '1', false],
    ['1.2.5', '1.2.x', true],
    ['1.3.0', '1.2.*', false],
    ['1.2.3', '1.2.3', true],
    ['1.2.4', '1.2.3', false],
    ['3.0.0', '*', true],
    ['1.5.0', '>=1.2.0 <2.0.0', true],
    ['2.0.0', '>=1.2.0 <2.0.0', false],
    ['2.1.0', '^1.0.0 || ^2.0.0', true],
    ['3.0.0', '^1.0.0 || ^2.0.0', false],
  ]
  for (const [version, range, expected] of cases)
    t.equal(satisfies(version, range), expected, `${version} in ${range}`)
})

t.test('a range or version it cannot read is null, not false', async (t) => {
  for (const range of ['', 'one point oh', '^x.1', '>=banana', '1.0.0 ||'])
    t.equal(satisfies('1.0.0', range), null, JSON.stringify(range))
  t.equal(satisfies('1.0', '^1.0.0'), null, 'a version that is not x.y.z')
})
