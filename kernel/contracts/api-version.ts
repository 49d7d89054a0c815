/**
 * The version of dictum's plugin API: the contracts of kernel/contracts/ as sdk/plugin.ts exports them. A new
 * optional field is a minor step; a change that breaks a plugin written before it, a major one. It is not
 * the package's version: dictum may change a lot without changing what a plugin sees. `defineEngine` and
 * `defineProvider` stamp a definition with `^` this version (the API it was written for), and discovery
 * refuses a plugin whose range does not hold this version (kernel/discovery.ts).
 */
export const PLUGIN_API_VERSION = '1.2.0'

/** The range a definition made by this SDK's `defineEngine`/`defineProvider` carries. */
export const WRITTEN_FOR = `^${PLUGIN_API_VERSION}`
