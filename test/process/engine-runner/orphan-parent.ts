/**
 * Run by lifecycle.test.ts as a separate process: starts a hang-engine host, prints its pid, puts it in a
 * busy loop and waits to be killed, so the test can check that the host dies with its parent.
 */
import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createEngineRunner } from '../../../kernel/engine-runner/index.ts'
import { fixtureRunner, request } from '../../kernel/engine-runner/runner-helpers.ts'

const dataDir = process.argv[2] as string
const runner = createEngineRunner(
  fixtureRunner('hang', { context: { options: { hangOnLoad: false }, dataDir, modelsDir: dataDir } }),
)
const alive = await runner.transcribe(request(1, 'alive'))
void runner.transcribe(request(1, 'busy'))
while (!fs.existsSync(path.join(dataDir, `busy-${alive.debug?.pid}`))) await sleep(10)
process.stdout.write(`${alive.debug?.pid}\n`)
await sleep(600_000)
