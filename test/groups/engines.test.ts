/** The in-process tests of the group 'engines' in one test process (test/helpers/groups.ts). */
import { runGroup } from '../helpers/groups.ts'

await runGroup('engines')
