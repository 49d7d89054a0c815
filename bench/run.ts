/**
 * `npm run bench [-- section…]`: runs the benchmark sections side by side in one run and prints ratios.
 * Sections: kernel, history (default: all that exist). Figures are medians of interleaved rounds.
 */
import { benchHistory, benchThroughput } from './kernel.ts'

type Section = () => Promise<Record<string, number | string>>

const sections: Record<string, Section> = {
  kernel: () => benchThroughput(),
  history: () => benchHistory(),
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
