// The status beacon and the status.* counters it reads (issue 25 point 6), from this host's real
// /proc through the minion's real function registry: Salt's defaults and field selection, Salt's
// "incorrectly configured" text, the UTC isoformat tag, and counters that move between two polls.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { statusBeacon, utcIsoformat } from '../../../src/beacons/status.js';
import { parseNetdev, parseNetstat, parseProcStat, saltNumber } from '../../../src/modules/status-counters.js';
import { createMinionRegistry } from '../../../src/state/index.js';
import { FakeClock, systemClock } from '../../../src/util/clock.js';
import { BrineError } from '../../../src/util/errors.js';
import { createLogger } from '../../../src/util/logger.js';
import { waitUntil } from '../../helpers/wait.js';
import { makeCtx } from '../modules/context.js';

const registry = createMinionRegistry();

function statusWith(clock = systemClock) {
  const logged: string[] = [];
  const logger = createLogger({ name: 't', level: 'debug', format: 'json', write: (l) => logged.push(l) });
  const inst = statusBeacon.create({
    id: 'm1',
    clock,
    logger,
    call: async (fun, arg) => {
      const r = await registry.call(fun, arg, {}, makeCtx());
      if (!r.success) throw new BrineError(r.error?.code ?? 'EXEC_FAILED', r.error?.message ?? fun);
      return r.return;
    },
  });
  return { inst, logged };
}

type Report = { tag: string; data: Record<string, unknown> };
const pollOnce = async (config: Record<string, unknown>, clock = systemClock): Promise<Report> => {
  const events = await statusWith(clock).inst.poll(config);
  assert.equal(events.length, 1, 'one event per poll');
  return events[0] as Report;
};
const cpuTotal = (r: Report): number => Object.values((r.data.cpustats as { cpu: Record<string, number> }).cpu).reduce((a, b) => a + b, 0);

describe('status beacon', () => {
  it("with no configuration sends loadavg, cpustats, meminfo, vmstats and time whole, tagged with Python's utcnow().isoformat()", async () => {
    const r = await pollOnce({});
    assert.match(r.tag, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/);
    assert.ok(Math.abs(Date.parse(`${r.tag}Z`) - Date.now()) < 60_000, r.tag);
    assert.deepEqual(Object.keys(r.data), ['loadavg', 'cpustats', 'meminfo', 'vmstats', 'time']);
    assert.deepEqual(Object.keys(r.data.loadavg as object), ['1-min', '5-min', '15-min']);
    const cpu = (r.data.cpustats as Record<string, Record<string, unknown>>).cpu!;
    assert.deepEqual(Object.keys(cpu).sort(), ['idle', 'iowait', 'irq', 'nice', 'softirq', 'steal', 'system', 'user']);
    for (const v of Object.values(cpu)) assert.ok(Number.isInteger(v) && (v as number) >= 0, JSON.stringify(cpu));
    const btime = Number(/^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'))?.[1]);
    assert.equal((r.data.cpustats as Record<string, unknown>).btime, btime);
    const mem = r.data.meminfo as Record<string, { value: string; unit?: string }>;
    assert.equal(mem.MemTotal?.unit, 'kB');
    assert.ok(Number(mem.MemTotal?.value) > 0);
    assert.equal(typeof (r.data.vmstats as Record<string, unknown>).nr_free_pages, 'number');
    // Salt's default format: Monday, 07. December 2026 09:30AM
    assert.match(String(r.data.time), /^[A-Z][a-z]+day, \d\d\. [A-Z][a-z]+ \d{4} \d\d:\d\d[AP]M$/);
  });

  it('counters move between two polls (the cpu jiffies of this busy machine)', async () => {
    const first = cpuTotal(await pollOnce({ cpustats: ['all'] }));
    await waitUntil(async () => cpuTotal(await pollOnce({ cpustats: ['all'] })) > first, 10_000, 'the cpu counters to grow');
  });

  it("picks fields; a missing one is Salt's incorrectly-configured text; a string or list is indexed; an unknown function sends {}", async () => {
    const r = await pollOnce({ loadavg: ['1-min', '5-min'], meminfo: ['MemTotal'], vmstats: '2-nope', time: [0], nosuch: ['all'] });
    assert.deepEqual(Object.keys(r.data.loadavg as object), ['1-min', '5-min']);
    assert.equal(typeof (r.data.loadavg as Record<string, unknown>)['1-min'], 'number');
    assert.deepEqual(Object.keys(r.data.meminfo as object), ['MemTotal']);
    assert.equal(r.data.vmstats, "Status beacon is incorrectly configured: '2-nope'");
    // Salt indexes the time string with 0: its first character
    assert.deepEqual(r.data.time, { 0: String((await registry.call('status.time', [], {}, makeCtx())).return)[0] });
    assert.deepEqual(r.data.nosuch, {});
    const { inst, logged } = statusWith();
    await inst.poll({ nosuch: ['all'] });
    assert.ok(
      logged.some((l) => l.includes('"code":"UNKNOWN_FUNCTION"') && l.includes('Status beacon attempted to process function nosuch')),
      logged.join(''),
    );
  });

  it("the tag is Python's isoformat: microseconds left out when zero", async () => {
    assert.equal(utcIsoformat(0), '1970-01-01T00:00:00');
    assert.equal(utcIsoformat(1500), '1970-01-01T00:00:01.500000');
    const clock = new FakeClock(Date.UTC(2026, 11, 7, 9, 30, 0, 250));
    assert.equal((await pollOnce({ loadavg: ['1-min'] }, clock)).tag, '2026-12-07T09:30:00.250000');
    assert.equal(statusBeacon.validate({}), undefined);
  });
});

describe("status counters as Salt's status module parses them", () => {
  it('_number: ints, floats, text left as is', () => {
    assert.equal(saltNumber('12'), 12);
    assert.equal(saltNumber('1.5'), 1.5);
    assert.equal(saltNumber('-3'), -3);
    assert.equal(saltNumber('1e3'), 1000);
    assert.equal(saltNumber('eth0'), 'eth0');
    assert.equal(saltNumber(''), '');
  });

  it('cpustats: cpu fields by position, intr and softirq totals with their lists, other lines their first number', () => {
    const s = parseProcStat([
      ['cpu', '1', '2', '3', '4', '5', '6', '7', '8', '0', '0'],
      ['cpu0', '9', '9'],
      ['intr', '100', '1', '2'],
      ['softirq', '50', '3', '4'],
      ['ctxt', '777'],
    ]);
    assert.deepEqual(s, {
      cpu: { idle: 4, iowait: 5, irq: 6, nice: 2, softirq: 7, steal: 8, system: 3, user: 1 },
      cpu0: 9,
      intr: { total: 100, irqs: [1, 2] },
      softirq: { total: 50, softirqs: [3, 4] },
      ctxt: 777,
    });
  });

  it('netdev: the kernel columns under Salt names; netstats: header and value lines, the last column left out as Salt does', () => {
    const dev = parseNetdev(
      'Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n  eth0: 100 2 3 4 5 6 7 8 200 10 11 12 13 14 15 16\n',
    );
    assert.deepEqual(dev, {
      eth0: {
        iface: 'eth0',
        rx_bytes: 100,
        rx_compressed: 7,
        rx_drop: 4,
        rx_errs: 3,
        rx_fifo: 5,
        rx_frame: 6,
        rx_multicast: 8,
        rx_packets: 2,
        tx_bytes: 200,
        tx_carrier: 15,
        tx_colls: 14,
        tx_compressed: 16,
        tx_drop: 12,
        tx_errs: 11,
        tx_fifo: 13,
        tx_packets: 10,
      },
    });
    assert.deepEqual(
      parseNetstat([
        ['TcpExt:', 'A', 'B', 'C'],
        ['TcpExt:', '1', '2', '3'],
      ]),
      { TcpExt: { A: 1, B: 2 } },
    );
  });

  it('the registry answers the new functions from /proc', async () => {
    for (const fun of ['status.cpustats', 'status.vmstats', 'status.diskstats', 'status.netdev', 'status.netstats']) {
      const r = await registry.call(fun, [], {}, makeCtx());
      assert.equal(r.success, true, fun);
      assert.ok(Object.keys(r.return as object).length > 0, `${fun} is not empty here`);
    }
    const lo = ((await registry.call('status.netdev', [], {}, makeCtx())).return as Record<string, Record<string, unknown>>).lo;
    assert.equal(lo?.iface, 'lo');
    assert.equal(typeof lo?.rx_bytes, 'number');
  });
});
