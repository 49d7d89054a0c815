/**
 * Node's modules that `dictum serve` imports at its start but calls only later, loaded at their first use in
 * the bundle (scripts/build.ts): node:crypto took ~6 ms of every start to load (measured: `require` in a
 * fresh process), for hashes and ids that come after listening. (node:child_process would gain nothing:
 * listening loads it, through node:cluster.)
 *
 * The bundle's `require` of each is replaced by an object that loads the module at its first use. esbuild
 * reads an import's names from the module object when they are used (`(0, import_node_crypto.createHash)(…)`),
 * and a default or namespace import copies its properties, which loads it: either way the code sees the
 * module itself, only later.
 */
export const LAZY_BUILTINS = ['node:crypto']

/** The bundle's `__lazyBuiltin(id)`, written at its top: `require` is the bundle's own. */
export const LAZY_BUILTIN = [
  'const __lazyBuiltin=(id)=>{let m;const load=()=>m??=require(id);return new Proxy({},{',
  'get:(_,k)=>load()[k],has:(_,k)=>k in load(),ownKeys:()=>Reflect.ownKeys(load()),',
  // Described as configurable: a proxy may not report a property its (empty) target lacks as fixed.
  'getOwnPropertyDescriptor:(_,k)=>{const d=Reflect.getOwnPropertyDescriptor(load(),k);return d&&{...d,configurable:true}}',
  '})};',
].join('')

/** `code` with its `require` of each of `ids` made lazy (found at least once each, or the build fails). */
export function lazyBuiltins(code: string, ids: readonly string[] = LAZY_BUILTINS): string {
  let result = code
  for (const id of ids) {
    const call = `require(${JSON.stringify(id)})`
    if (!result.includes(call)) throw new Error(`the bundle has no ${call} to make lazy`)
    result = result.split(call).join(`__lazyBuiltin(${JSON.stringify(id)})`)
  }
  return result
}
