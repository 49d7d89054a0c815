/**
 * The bundle's lazily loaded Node modules (scripts/lazy-builtins.ts): nothing is loaded until a name is
 * read, then the module itself answers every way the bundle's code reads it (a name, `in`, the keys and the
 * property copy esbuild makes for a default import); and the build's rewrite of the `require` calls.
 */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import t from 'tap'
import { LAZY_BUILTIN, lazyBuiltins } from '../../scripts/lazy-builtins.ts'

type Lazy = (id: string) => Record<string, unknown>

/** `__lazyBuiltin` as the bundle defines it, over `require`. */
function lazyOver(require: (id: string) => unknown): Lazy {
  return new Function('require', `${LAZY_BUILTIN}\nreturn __lazyBuiltin`)(require) as Lazy
}

t.test('the module loads at the first name read, once, and is itself', async (t) => {
  const real = { hash: () => 'hashed', size: 3 }
  const loads: string[] = []
  const lazy = lazyOver((id) => {
    loads.push(id)
    return real
  })('node:crypto')
  t.same(loads, [], 'making it loads nothing')
  t.equal(lazy.hash, real.hash, "a name read gives the module's own function")
  t.same(loads, ['node:crypto'], 'loaded then')
  t.equal((lazy.hash as () => string)(), 'hashed')
  t.equal(lazy.size, 3)
  t.ok('hash' in lazy, '`in` sees its names')
  t.notOk('missing' in lazy)
  t.same(Object.keys(lazy), ['hash', 'size'], 'its keys')
  t.same({ ...lazy }, real, 'a copy of its properties (a default import) is the module')
  const described = Object.getOwnPropertyDescriptor(lazy, 'size')
  t.equal(described?.value, 3)
  t.same(loads, ['node:crypto'], 'loaded once')
})

t.test('node:crypto through it hashes as node:crypto does', async (t) => {
  const lazy = lazyOver(createRequire(import.meta.url))('node:crypto')
  const make = lazy.createHash as typeof createHash
  t.equal(make('sha256').update('dictum').digest('hex'), createHash('sha256').update('dictum').digest('hex'))
})

t.test("the build's rewrite: every require of a listed module, and none missing", async (t) => {
  const code = 'var a=require("node:crypto"),b=require("node:fs");var c=require("node:crypto");'
  t.equal(
    lazyBuiltins(code, ['node:crypto']),
    'var a=__lazyBuiltin("node:crypto"),b=require("node:fs");var c=__lazyBuiltin("node:crypto");',
  )
  t.throws(() => lazyBuiltins(code, ['node:zlib']), /no require\("node:zlib"\) to make lazy/)
})
