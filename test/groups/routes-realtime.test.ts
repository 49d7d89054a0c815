/** The in-process tests of the group 'routes-realtime' in one test process (test/helpers/groups.ts). */
import { runGroup } from '../helpers/groups.ts'

await runGroup('routes-realtime')
