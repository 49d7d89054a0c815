/** The in-process tests of the group 'jobs' in one test process (test/helpers/groups.ts). */
import { runGroup } from '../helpers/groups.ts'

await runGroup('jobs')
