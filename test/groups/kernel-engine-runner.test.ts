/** The in-process tests of the group 'kernel-engine-runner' in one test process (test/helpers/groups.ts). */
import { runGroup } from '../helpers/groups.ts'

await runGroup('kernel-engine-runner')
