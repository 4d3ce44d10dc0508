// Issue 25 point 6, the status, network_info and journald beacons end to end: a real master and
// minion over loopback TLS, events seen on `brine events`. status sends the counters asked for
// (and Salt's five functions when none are), tagged with the UTC time; network_info sends
// loopback's psutil counters; journald follows a real systemd-journald (a namespace of the test's
// own) and fires the entries written with logger(1) that match; where the host's journald does
// not run, a journald beacon is refused with the reason, in the log and by beacons.add.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';
import { runJson } from '../helpers/run-json.js';
import { openEventStream, type EventTail } from '../helpers/event-tail.js';
import { NamespacedJournald, journaldSkipReason } from '../helpers/journald.js';
import { privilegedSkip } from '../helpers/privileged.js';

const hostJournald = fs.existsSync('/run/systemd/journal/socket');
const journaldSkip = privilegedSkip('journald beacon end to end', journaldSkipReason);

describe('beacons: status, network_info, journald', () => {
  let cluster: Cluster;
  let stream: EventTail;
  let m1: Proc;
  let jd: NamespacedJournald | undefined;

  const run = (args: string[]) => runJson(cluster, 'm1', args);

  before(async () => {
    cluster = await Cluster.create();
    if (journaldSkip === false) jd = await NamespacedJournald.start();
    await cluster.startMaster({ auto_accept: true });
    const beacons: Record<string, unknown> = {
      status: [{ loadavg: ['1-min'] }, { cpustats: ['cpu'] }, { interval: 1 }],
      status_all: [{ beacon_module: 'status' }, { interval: 1 }],
      network_info: [{ interfaces: { lo: { type: 'greater', bytes_recv: 0 } } }, { interval: 1 }],
    };
    if (jd !== undefined) beacons.journald = [{ namespace: jd.namespace }, { services: { brinetest: { SYSLOG_IDENTIFIER: 'brinebeacon', PRIORITY: 3 } } }];
    // the host's own journal, where no journald runs: refused with the reason
    if (!hostJournald) beacons.journald_host = [{ beacon_module: 'journald' }, { services: { any: {} } }];
    m1 = cluster.startMinion('m1', { loop_interval: 0.2, beacons });
    await m1.waitForOutput(/ready to receive requests/);
    stream = await openEventStream(cluster, 'm1');
  });
  after(async () => {
    await stream?.close();
    // a minion stopped gracefully ends its journalctl; cleanup's SIGKILL would leave it behind
    await m1?.kill('SIGTERM');
    await cluster?.cleanup();
    await jd?.stop();
  });

  it('status sends the fields asked for, tagged with the UTC time, and the counters move', async () => {
    const [first] = await stream.waitFor('salt/beacon/m1/status/', 1, 20_000);
    assert.match(first!.tag, /^salt\/beacon\/m1\/status\/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/);
    const data = first!.data.data as { loadavg: Record<string, unknown>; cpustats: { cpu: Record<string, number> } };
    assert.equal(first!.data.id, 'm1');
    assert.deepEqual(Object.keys(data), ['loadavg', 'cpustats']);
    assert.deepEqual(Object.keys(data.loadavg), ['1-min']);
    assert.deepEqual(Object.keys(data.cpustats), ['cpu']);
    const total = (d: typeof data) => Object.values(d.cpustats.cpu).reduce((a, b) => a + b, 0);
    await waitUntil(() => stream.lines('salt/beacon/m1/status/').some((e) => total(e.data.data as typeof data) > total(data)), 20_000, 'a later status event with more cpu time');
  });

  it("status with no functions sends Salt's five", async () => {
    const [e] = await stream.waitFor('salt/beacon/m1/status_all/', 1, 20_000);
    assert.deepEqual(Object.keys(e!.data.data as object), ['loadavg', 'cpustats', 'meminfo', 'vmstats', 'time']);
  });

  it("network_info sends loopback's counters, which grow", async () => {
    const [first] = await stream.waitFor('salt/beacon/m1/network_info/', 1, 20_000);
    assert.equal(first!.tag, 'salt/beacon/m1/network_info/');
    assert.equal(first!.data.interface, 'lo');
    const info = first!.data.network_info as Record<string, number>;
    assert.deepEqual(Object.keys(info), ['bytes_sent', 'bytes_recv', 'packets_sent', 'packets_recv', 'errin', 'errout', 'dropin', 'dropout']);
    // the minion's own TLS link to the master is loopback traffic
    await waitUntil(
      () => stream.lines('salt/beacon/m1/network_info/').some((e) => (e.data.network_info as Record<string, number>).bytes_recv! > info.bytes_recv!),
      20_000,
      'a later network_info event with more bytes received',
    );
  });

  it("a bad network_info configuration is refused by beacons.add with Salt's text", async () => {
    const bad = await run(['beacons.add', 'net_bad', '[{"beacon_module": "network_info"}, {"interfaces": {"lo": {"speed": 1}}}]']);
    assert.equal(bad.code, 1, bad.raw);
    assert.deepEqual(bad.ret, { comment: 'Beacon net_bad configuration invalid, not adding.\nInvalid configuration item in Beacon configuration.', result: false });
  });

  it('journald fires the matching entries of a real journal, tagged with the service', { skip: journaldSkip }, async () => {
    const j = jd!;
    // the beacon starts reading at the journal's end at its first poll: write until one shows
    await waitUntil(
      () => {
        j.logger('brinebeacon', 'user.err', 'disk on fire');
        return stream.lines('salt/beacon/m1/journald/brinetest').length > 0;
      },
      30_000,
      `a journald event\n${m1.output.slice(-3000)}`,
      300,
    );
    j.logger('brinebeacon', 'user.info', 'all is well');
    j.logger('brinebeacon', 'user.err', 'the last one');
    await waitUntil(() => stream.lines('salt/beacon/m1/journald/brinetest').some((e) => e.data.MESSAGE === 'the last one'), 20_000, 'the last error entry');
    const events = stream.lines('salt/beacon/m1/journald/');
    assert.deepEqual([...new Set(events.map((e) => e.tag))], ['salt/beacon/m1/journald/brinetest']);
    assert.equal(
      events.some((e) => e.data.MESSAGE === 'all is well'),
      false,
      'an info entry does not match PRIORITY: 3',
    );
    const e = events.find((x) => x.data.MESSAGE === 'the last one')!;
    assert.equal(e.data.PRIORITY, 3);
    assert.equal(e.data.SYSLOG_IDENTIFIER, 'brinebeacon');
    assert.equal(e.data._NAMESPACE, j.namespace);
    assert.equal(e.data.id, 'm1');
    assert.match(String(e.data._BOOT_ID), /^UUID\('[0-9a-f-]{36}'\)$/);
  });

  it('without a running journald the beacon is refused with the reason, in the log and by beacons.add', { skip: hostJournald ? "this host's systemd-journald runs" : false }, async () => {
    await m1.waitForOutput(/Beacon journald_host not running: Beacon "journald" is not available here: systemd-journald is not running \(no \/run\/systemd\/journal\/socket\)/);
    assert.match(m1.output, /BEACON_UNAVAILABLE/);
    const added = await run(['beacons.add', 'j2', '[{"beacon_module": "journald"}, {"services": {}}]']);
    assert.equal(added.code, 1, added.raw);
    assert.match(String((added.ret as { comment: string }).comment), /^Beacon "journald" is not available here: systemd-journald is not running/);
    const avail = await run(['beacons.list_available', 'return_yaml=False']);
    assert.ok(Array.isArray(avail.ret) && avail.ret.includes('status') && avail.ret.includes('network_info') && !avail.ret.includes('journald'), avail.raw);
  });
});
