/**
 * The progress meter's throttle: at most one report per interval, and a count it held back is reported when
 * the interval ends, so a download that stalls right after it does not show a stale figure.
 * The clock is fixed: the meter's own timer is the only thing that moves a report.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { type DownloadProgress, ProgressMeter } from '../../models/progress-meter.ts'

function meterOnFixedClock(intervalMs: number) {
  const reports: DownloadProgress[] = []
  const meter = new ProgressMeter({ now: () => 1000, intervalMs, onProgress: (p) => reports.push(p) })
  // The meter's timer is unref'd (it never keeps a process alive), so the wait polls on a timer of its own.
  const reportCount = async (count: number) => {
    while (reports.length < count) await sleep(5)
  }
  return { meter, reports, reportCount }
}

t.test('a count held back by the throttle is reported when the interval ends', async (t) => {
  const { meter, reports, reportCount } = meterOnFixedClock(20)
  meter.setTotal(100)
  meter.reset(0)
  meter.add(10)
  meter.add(15)
  t.same(
    reports.map((r) => r.receivedBytes),
    [0],
    'the two counts inside the interval are held back',
  )
  await reportCount(2)
  t.same(
    reports.map((r) => r.receivedBytes),
    [0, 25],
    'one trailing report with the latest count',
  )
  await sleep(100)
  t.equal(reports.length, 2, 'nothing more without new bytes')
})

t.test('close() drops the trailing report; finish() sends the last count once', async (t) => {
  const closed = meterOnFixedClock(20)
  closed.meter.reset(0)
  closed.meter.add(10)
  closed.meter.close()
  closed.meter.close()
  // A 20 ms timer, had it not been cleared, fires before this 100 ms one.
  await sleep(100)
  t.same(
    closed.reports.map((r) => r.receivedBytes),
    [0],
    'no report after close()',
  )

  const finished = meterOnFixedClock(20)
  finished.meter.reset(0)
  finished.meter.add(10)
  finished.meter.finish()
  await sleep(100)
  t.same(
    finished.reports.map((r) => r.receivedBytes),
    [0, 10],
    'finish() reports at once and no trailing report repeats it',
  )
})
