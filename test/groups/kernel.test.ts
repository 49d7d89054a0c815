/** The in-process tests of the group 'kernel' in one test process (test/helpers/groups.ts). */
import { runGroup } from '../helpers/groups.ts'

await runGroup('kernel')
