/**
 * `dictum-local/testing`: the conformance suites every built-in engine and provider passes, for plugin
 * authors' own tests. They take a test object with tap's assertion names (`tap`'s `t` is one); see
 * docs/plugins.md.
 */
export type { ConformanceTest } from './testing/conformance-test.ts'
export { type EngineContractCase, runEngineContract } from './testing/engine-suite.ts'
export { type ProviderContractCase, runProviderContract } from './testing/provider-suite.ts'
