/** The in-process tests of the group 'engines-pocketsphinx-stream' in one test process (test/helpers/groups.ts). */
import { runGroup } from '../helpers/groups.ts'

await runGroup('engines-pocketsphinx-stream')
