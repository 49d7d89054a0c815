/**
 * `npm run bench [-- section…]`: runs the benchmark sections side by side in one run and prints ratios.
 * Sections (default: all): see `sections` below. Figures are medians of interleaved rounds.
 */
import { benchAbuse } from './abuse.ts'
import { benchBusyNeighbours } from './busy-neighbours.ts'
import { benchCli } from './cli.ts'
import { benchConcurrentDictation, benchLongFile } from './cores.ts'
import { benchCustomWords } from './custom-words.ts'
import { benchDesktop } from './desktop.ts'
import { benchJobs } from './jobs.ts'
import { benchHistory, benchThroughput } from './kernel.ts'
import { benchLearning } from './learning.ts'
import { benchLive } from './live.ts'
import { benchLiveCpu } from './live-cpu.ts'
import { benchLiveSoak } from './live-soak.ts'
import { benchPocketsphinx } from './pocketsphinx.ts'
import { benchPostprocess } from './postprocess.ts'
import { benchRemote } from './remote.ts'
import { benchRules } from './rules.ts'
import { benchSherpa } from './sherpa.ts'
import { benchSherpaHttp } from './sherpa-http.ts'
import { benchStartup } from './startup.ts'
import { benchHealthUnderLoad, benchHttpVsDirect } from './transcription.ts'
import { benchWeb } from './web.ts'

type Section = () => Promise<Record<string, number | string>>

const sections: Record<string, Section> = {
  kernel: () => benchThroughput(),
  history: () => benchHistory(),
  'health-under-load': () => benchHealthUnderLoad(),
  'http-vs-engine': () => benchHttpVsDirect(),
  'busy-neighbours': () => benchBusyNeighbours(),
  pocketsphinx: () => benchPocketsphinx(),
  sherpa: () => benchSherpa(),
  'sherpa-http': () => benchSherpaHttp(),
  rules: () => benchRules(),
  postprocess: () => benchPostprocess(),
  remote: () => benchRemote(),
  cli: () => benchCli(),
  'custom-words': () => benchCustomWords(),
  startup: () => benchStartup(),
  abuse: () => benchAbuse(),
  live: () => benchLive(Number(process.env.LIVE_ROUNDS ?? 2)),
  'live-soak': () => benchLiveSoak(),
  'live-cpu': () => benchLiveCpu(),
  jobs: () => benchJobs(),
  web: () => benchWeb(),
  'long-file': () => benchLongFile(),
  'concurrent-dictation': () => benchConcurrentDictation(),
  desktop: () => benchDesktop(),
  learning: () => benchLearning(),
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2)
  const names = wanted.length > 0 ? wanted : Object.keys(sections)
  for (const name of names) {
    const section = sections[name]
    if (!section) {
      process.stderr.write(`unknown section "${name}" (known: ${Object.keys(sections).join(', ')})\n`)
      process.exitCode = 2
      return
    }
    process.stdout.write(`\n## ${name}\n`)
    const figures = await section()
    for (const [key, value] of Object.entries(figures)) process.stdout.write(`${key}: ${value}\n`)
  }
}

await main()
