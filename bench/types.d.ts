// autocannon ships no type declarations; bench/lib/load.ts uses the few fields it reads.
declare module 'autocannon' {
  interface Result {
    requests: { average: number }
    latency: { p99: number; p50: number; average: number; max: number }
    errors: number
    non2xx: number
  }
  function autocannon(options: Record<string, unknown>): Promise<Result>
  export default autocannon
}
