// The journald beacon (issue 25 point 6). Without a journal: python-systemd's conversions and
// Salt's simple_types_filter on a line journalctl printed, Python's == for `services:` values,
// validate texts. With a real systemd-journald in a namespace of its own (root, Debian's systemd):
// every entry read through journalctl equals what python-systemd's Reader (the library Salt's
// beacon uses, Debian's python3-systemd) gives for it, field for field; the follower picks up new
// entries and, when journalctl dies, starts again after the last one (none lost, none twice); the
// beacon fires an entry matching all of a service's fields and no other.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { bytesRepr, datetimeRepr, pyEquals, readerEntry, simpleTypes, timedeltaRepr, uuidRepr } from '../../../src/beacons/journal-entry.js';
import { JournalFollower } from '../../../src/beacons/journal-follower.js';
import { journaldBeacon, journaldUnavailable } from '../../../src/beacons/journald.js';
import { beaconProblem } from '../../../src/minion/beacons/beacon-store.js';
import { FakeClock } from '../../../src/util/clock.js';
import { createLogger, silentLogger } from '../../../src/util/logger.js';
import { NamespacedJournald, PYTHON_SYSTEMD, journaldSkipReason, pythonSystemdSkipReason } from '../../helpers/journald.js';
import { privilegedSkip } from '../../helpers/privileged.js';
import { repoRoot } from '../../helpers/repo.js';
import { waitUntil } from '../../helpers/wait.js';

/** One line journalctl -o json printed for `logger -t brinetag -p user.info "hello beacon"`. */
const LINE = {
  __CURSOR: 's=be55bd538b5f47ca8fa27bd181759e1f;i=6;b=fe4f5179da324dacae27626889b5313c;m=f5f93065c;t=66207fa43ba69;x=62e8ba4512d631c8',
  __MONOTONIC_TIMESTAMP: '66027980380',
  __SEQNUM: '6',
  _HOSTNAME: 'vm',
  _BOOT_ID: 'fe4f5179da324dacae27626889b5313c',
  _UID: '0',
  SYSLOG_FACILITY: '1',
  SYSLOG_IDENTIFIER: 'brinetag',
  MESSAGE: 'hello beacon',
  _PID: '25396',
  __REALTIME_TIMESTAMP: '1796636263299689',
  _MACHINE_ID: '3d1219c7c4c5404aaa1f6d2a48adfda4',
  PRIORITY: '6',
  _SOURCE_REALTIME_TIMESTAMP: '1796636263289420',
  _TRANSPORT: 'syslog',
};

/** Runs `fn` with the process's TZ set to `tz` (Python and Node both read the local zone from it). */
function withTz(tz: string, fn: () => void): void {
  const before = process.env.TZ;
  process.env.TZ = tz;
  try {
    fn();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
}

describe('journald entries as python-systemd and Salt give them', () => {
  it('numbers, UUIDs, datetimes and the monotonic pair converted; journalctl-only fields left out', () => {
    withTz('UTC', () => {
      const e = simpleTypes(readerEntry(LINE));
      assert.equal(e.PRIORITY, 6);
      assert.equal(e._PID, 25396);
      assert.equal(e.SYSLOG_FACILITY, 1);
      assert.equal(e.MESSAGE, 'hello beacon');
      assert.equal(e._BOOT_ID, "UUID('fe4f5179-da32-4dac-ae27-626889b5313c')");
      assert.equal(e._MACHINE_ID, "UUID('3d1219c7-c4c5-404a-aa1f-6d2a48adfda4')");
      // python-systemd 235 under TZ=UTC: fromtimestamp(1796636263299689 / 1000000, <local zone>)
      const utc = "tzinfo=datetime.timezone(datetime.timedelta(0), 'UTC')";
      assert.equal(e.__REALTIME_TIMESTAMP, `datetime.datetime(2026, 12, 7, 9, 37, 43, 299689, ${utc})`);
      assert.equal(e._SOURCE_REALTIME_TIMESTAMP, `datetime.datetime(2026, 12, 7, 9, 37, 43, 289420, ${utc})`);
      assert.deepEqual(e.__MONOTONIC_TIMESTAMP, ['datetime.timedelta(seconds=66027, microseconds=980380)', "UUID('fe4f5179-da32-4dac-ae27-626889b5313c')"]);
      assert.equal(e.__CURSOR, LINE.__CURSOR);
      assert.equal('__SEQNUM' in e, false);
    });
  });

  it("Python's reprs", () => {
    assert.equal(timedeltaRepr(0), 'datetime.timedelta(0)');
    assert.equal(timedeltaRepr(86_400_000_001), 'datetime.timedelta(days=1, microseconds=1)');
    assert.equal(uuidRepr('not-a-uuid'), undefined);
    assert.equal(bytesRepr(Uint8Array.from([0x61, 0x27, 0x62])), `b"a'b"`);
    assert.equal(bytesRepr(Uint8Array.from([0x61, 0x27, 0x22])), `b'a\\'"'`);
    assert.equal(bytesRepr(Uint8Array.from([0xff, 0x00, 0x0a, 0x09, 0x5c])), "b'\\xff\\x00\\n\\t\\\\'");
    withTz('UTC', () => {
      const utc = "tzinfo=datetime.timezone(datetime.timedelta(0), 'UTC')";
      assert.equal(datetimeRepr(Date.UTC(2026, 0, 2, 3, 4, 0) * 1000), `datetime.datetime(2026, 1, 2, 3, 4, ${utc})`);
      assert.equal(datetimeRepr(Date.UTC(2026, 0, 2, 3, 4, 5) * 1000), `datetime.datetime(2026, 1, 2, 3, 4, 5, ${utc})`);
      assert.equal(timedeltaRepr(-5 * 3600e6), 'datetime.timedelta(days=-1, seconds=68400)');
    });
  });

  it('binary values are bytes unless they are UTF-8; a field given twice is a list; a bad number stays bytes', () => {
    const e = simpleTypes(readerEntry({ BIN: [255, 0], ESC: [27, 91, 49, 109], TWICE: ['a', 'b'], CODE_LINE: 'abc', MESSAGE_ID: 'zz' }));
    assert.equal(e.BIN, "b'\\xff\\x00'");
    assert.equal(e.ESC, '\u001b[1m');
    assert.deepEqual(e.TWICE, ['a', 'b']);
    assert.equal(e.CODE_LINE, "b'abc'");
    assert.equal(e.MESSAGE_ID, "b'zz'");
  });

  it("services values compare with Python's ==", () => {
    const e = readerEntry(LINE);
    assert.equal(pyEquals(6, e.PRIORITY!), true);
    assert.equal(pyEquals('6', e.PRIORITY!), false, 'PRIORITY is a number in the Reader');
    assert.equal(pyEquals(true, readerEntry({ PRIORITY: '1' }).PRIORITY!), true, 'True == 1');
    assert.equal(pyEquals('brinetag', e.SYSLOG_IDENTIFIER!), true);
    assert.equal(pyEquals('fe4f5179da324dacae27626889b5313c', e._BOOT_ID!), false, 'a UUID never equals a string');
  });

  it("validate answers Salt's texts; a namespace must be a name", () => {
    assert.equal(journaldBeacon.validate({ services: { sshd: { SYSLOG_IDENTIFIER: 'sshd', PRIORITY: 6 } } }), undefined);
    assert.equal(journaldBeacon.validate({}), undefined);
    assert.equal(journaldBeacon.validate({ services: { sshd: 'sshd' } }), 'Services configuration for journald beacon must be a list of dictionaries.');
    assert.equal(journaldBeacon.validate({ services: ['sshd'] }), 'Services configuration for journald beacon must be a list of dictionaries.');
    assert.match(String(journaldBeacon.validate({ namespace: '../etc' })), /namespace must be a journal namespace name/);
  });

  it('where the journal is missing the beacon is not available, with the reason', async () => {
    assert.match(
      String(journaldUnavailable({ namespace: 'brine-none' })),
      /^systemd-journald for namespace brine-none \(systemd-journald@brine-none.service\) is not running \(no \/run\/systemd\/journal.brine-none\/socket\)/,
    );
    assert.match(String(await beaconProblem('journald', [{ namespace: 'brine-none' }, { services: {} }])), /^Beacon "journald" is not available here: systemd-journald for namespace brine-none/);
  });
});

const skip = privilegedSkip('journald beacon against a real systemd-journald', journaldSkipReason);

describe('journald beacon on a real journal', { skip }, () => {
  let jd: NamespacedJournald;
  before(async () => {
    jd = await NamespacedJournald.start();
  });
  after(async () => {
    await jd?.stop();
  });

  /** Writes entries tagged `tag` until the follower has taken one (it starts at the journal's end), then returns what it took. */
  async function primed(follower: JournalFollower, tag: string): Promise<Record<string, unknown>[]> {
    const got: Record<string, unknown>[] = [];
    await waitUntil(
      () => {
        jd.logger(tag, 'user.info', 'prime');
        got.push(...follower.take());
        return got.some((e) => e.SYSLOG_IDENTIFIER === tag);
      },
      15_000,
      'journalctl to follow the namespace',
      200,
    );
    return got;
  }

  it("every entry read through journalctl is what python-systemd's Reader gives Salt", { skip: pythonSystemdSkipReason }, () => {
    jd.logger('brinediff', 'daemon.warning', 'plain syslog line');
    jd.send({ MESSAGE: 'native', SYSLOG_IDENTIFIER: 'brinediff', PRIORITY: '3', CODE_LINE: '42', ERRNO: '2', MESSAGE_ID: 'fc2e22bc6ee647b6b90729ab34a250b1', TWICE: ['one', 'two'] });
    jd.send({ MESSAGE: 'odd', SYSLOG_IDENTIFIER: 'brinediff', BIN: { hex: 'ff00' }, ESC: { hex: '1b5b316d' }, MULTI: 'line\nbreak', CODE_LINE: 'abc' });
    const ours = new Map(jd.entries().map((raw) => [String(raw.__CURSOR), simpleTypes(readerEntry(raw))]));
    const py = execFileSync(PYTHON_SYSTEMD, [path.join(repoRoot(), 'test', 'helpers', 'journal-reader.py'), jd.namespace], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(py.filter((e) => e.SYSLOG_IDENTIFIER === 'brinediff').length >= 3, JSON.stringify(py));
    for (const theirs of py) assert.deepEqual(ours.get(String(theirs.__CURSOR)), theirs);
    assert.equal(ours.size, py.length);
  });

  it('the follower takes new entries; journalctl killed, it starts again after the last one: none lost, none twice', async () => {
    const follower = new JournalFollower('journalctl', silentLogger(), [`--namespace=${jd.namespace}`]);
    try {
      const got = await primed(follower, 'brinefollow');
      const pid = follower.pid!;
      process.kill(pid, 'SIGKILL');
      await waitUntil(() => follower.pid === undefined, 10_000, 'the follower to see journalctl end');
      jd.logger('brinegap', 'user.info', 'written while journalctl was down');
      await waitUntil(
        () => {
          got.push(...follower.take());
          return got.some((e) => e.SYSLOG_IDENTIFIER === 'brinegap');
        },
        15_000,
        'the entry written while journalctl was down',
        100,
      );
      assert.notEqual(follower.pid, pid);
      assert.equal(got.filter((e) => e.SYSLOG_IDENTIFIER === 'brinegap').length, 1);
      const cursors = got.map((e) => e.__CURSOR);
      assert.equal(new Set(cursors).size, cursors.length, 'no entry is taken twice');
    } finally {
      follower.close();
    }
  });

  it('a flood beyond the queue keeps the newest entries and says how many were dropped', async () => {
    const logged: string[] = [];
    const logger = createLogger({ name: 't', level: 'warning', format: 'json', write: (l) => logged.push(l) });
    const follower = new JournalFollower('journalctl', logger, [`--namespace=${jd.namespace}`], 3);
    try {
      await primed(follower, 'brineprime');
      for (let i = 0; i < 8; i++) jd.logger('brineflood', 'user.info', `flood ${i}`);
      // all eight are in the journal; the follower has read them once the last one is queued
      await waitUntil(() => jd.entries().filter((e) => e.SYSLOG_IDENTIFIER === 'brineflood').length === 8, 10_000, 'the flood in the journal');
      await waitUntil(() => follower.queued.some((e) => e.MESSAGE === 'flood 7'), 10_000, 'the follower to read the flood');
      const got = follower.take();
      assert.deepEqual(
        got.map((e) => e.MESSAGE),
        ['flood 5', 'flood 6', 'flood 7'],
      );
      assert.ok(
        logged.some((l) => /journal entries came faster than the beacon polls and were dropped/.test(l)),
        logged.join(''),
      );
    } finally {
      follower.close();
    }
  });

  it("fires each entry matching all of a service's fields (PRIORITY as a number), tagged with the service", async () => {
    const inst = journaldBeacon.create({ id: 'm1', clock: new FakeClock(), logger: silentLogger(), call: async () => undefined });
    const config = { namespace: jd.namespace, services: { web: { SYSLOG_IDENTIFIER: 'brineweb', PRIORITY: 3 }, quoted: { SYSLOG_IDENTIFIER: 'brineweb', PRIORITY: '3' } } };
    assert.equal(journaldUnavailable(config), undefined);
    try {
      await waitUntil(
        async () => {
          jd.logger('brineweb', 'user.err', 'warm up');
          return (await inst.poll(config)).length > 0;
        },
        15_000,
        'the beacon to follow the namespace',
        200,
      );
      jd.logger('brineweb', 'user.info', 'not an error');
      jd.logger('brineweb', 'user.err', 'disk on fire');
      const events: Record<string, unknown>[] = [];
      await waitUntil(
        async () => {
          events.push(...(await inst.poll(config)));
          return events.some((e) => e.MESSAGE === 'disk on fire');
        },
        15_000,
        'the error entry',
        100,
      );
      // the warm-up entries are errors too; the info one and the quoted PRIORITY never match
      assert.deepEqual(
        events.filter((e) => e.MESSAGE !== 'warm up').map((e) => [e.tag, e.MESSAGE]),
        [['web', 'disk on fire']],
      );
      assert.deepEqual([...new Set(events.map((e) => e.tag))], ['web']);
      const e = events.find((x) => x.MESSAGE === 'disk on fire')!;
      assert.equal(e.PRIORITY, 3);
      assert.equal(e._NAMESPACE, jd.namespace);
      assert.match(String(e.__REALTIME_TIMESTAMP), /^datetime\.datetime\(\d{4}, /);
    } finally {
      inst.close?.();
    }
  });
});
