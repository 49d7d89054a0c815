/**
 * `dictum-local/testing`: the conformance suites every built-in engine and provider passes, for plugin
 * authors' own tests. They take a test object with tap's assertion names (`tap`'s `t` is one), and derive
 * their checks from the capabilities the plugin declares; see docs/plugins.md.
 */
export type { ConformanceTest } from './testing/conformance-test.ts'
export {
  type EngineContractCase,
  runEngineContract,
  SAMPLE_CUSTOM_WORDS,
} from './testing/engine-suite.ts'
export { type ProviderContractCase, runProviderContract, SAMPLE_PROMPT } from './testing/provider-suite.ts'
