/** The in-process tests of the group 'routes-openai' in one test process (test/helpers/groups.ts). */
import { runGroup } from '../helpers/groups.ts'

await runGroup('routes-openai')
