// The minion's on-disk return queue (issue 3 item 4): returns survive a restart, acks delete
// them, the bound drops the oldest and counts it, damaged files are quarantined, disk errors
// never escape add(), and a model-based property keeps memory, disk and the model in step.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { ReturnQueue, type ReturnQueueFs } from '../../../src/minion/return-queue.js';
import type { Return } from '../../../src/protocol/index.js';
import { createLogger, type Logger } from '../../../src/util/logger.js';
import { isBrineError } from '../../../src/util/errors.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-rq-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

let dirSeq = 0;
/** A fresh `<cachedir>/returns` path (not created: open() must create it). */
function freshDir(): string {
  return path.join(root, `cache-${++dirSeq}`, 'returns');
}

function jid(n: number): string {
  return `20240102030405${String(n).padStart(6, '0')}`;
}

function ret(n: number, out: unknown = `out-${n}`): Return {
  return { t: 'return', jid: jid(n), fun: 'test.echo', ret: out, retcode: 0, success: true };
}

/** The .json files in the queue dir, sorted: what a restart would load. */
function files(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

function capture(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger({ name: 'test', level: 'debug', format: 'json', write: (l) => lines.push(JSON.parse(l) as LogLine) });
  return { logger, lines };
}

describe('ReturnQueue persistence', () => {
  it('creates the directory 0700 and keeps returns across a restart, in jid order', () => {
    const dir = freshDir();
    const q = ReturnQueue.open(dir, { max: 10, clock: { now: () => 1234 } });
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    q.add(ret(3, { nested: [1, 2] }));
    q.add(ret(1));
    q.add(ret(2));
    assert.deepEqual(files(dir), [`${jid(1)}.json`, `${jid(2)}.json`, `${jid(3)}.json`]);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, `${jid(3)}.json`), 'utf8')), { ...ret(3, { nested: [1, 2] }), queuedAt: 1234 });
    assert.equal(fs.statSync(path.join(dir, `${jid(3)}.json`)).mode & 0o777, 0o600);

    // a restart: a new instance on the same directory sees the same returns, oldest first
    const again = ReturnQueue.open(dir, { max: 10 });
    assert.deepEqual(again.pending(), [ret(1), ret(2), ret(3, { nested: [1, 2] })]);
    assert.equal(again.size, 3);
    assert.ok(again.has(jid(2)));
    // queuedAt is not part of the wire message
    assert.equal('queuedAt' in again.pending()[0]!, false);
  });

  it('ack removes the file and the entry; an unknown or invalid jid is false', () => {
    const dir = freshDir();
    const q = ReturnQueue.open(dir, { max: 10, fsync: false });
    q.add(ret(1));
    q.add(ret(2));
    assert.equal(q.ack(jid(1)), true);
    assert.equal(q.ack(jid(1)), false);
    assert.equal(q.ack(jid(9)), false);
    assert.equal(q.ack('../x'), false);
    assert.equal(q.has(jid(1)), false);
    assert.deepEqual(files(dir), [`${jid(2)}.json`]);
    assert.deepEqual(ReturnQueue.open(dir, { max: 10 }).pending(), [ret(2)]);
  });

  it('replaces a return queued under the same jid, in memory and on disk', () => {
    const dir = freshDir();
    const q = ReturnQueue.open(dir, { max: 2, fsync: false });
    q.add(ret(1, 'first'));
    q.add(ret(2));
    q.add(ret(1, 'second'));
    assert.equal(q.size, 2);
    assert.equal(q.dropped, 0, 'a replacement is not an overflow');
    assert.deepEqual(q.pending(), [ret(1, 'second'), ret(2)]);
    assert.deepEqual(ReturnQueue.open(dir, { max: 2 }).pending(), [ret(1, 'second'), ret(2)]);
  });

  it('keeps a copy: mutating the caller object later changes nothing', () => {
    const q = ReturnQueue.open(freshDir(), { max: 2, fsync: false });
    const r = ret(1);
    q.add(r);
    r.ret = 'mutated';
    assert.equal(q.pending()[0]!.ret, 'out-1');
  });
});

describe('ReturnQueue bound', () => {
  it('drops the oldest jid when full, deletes its file, counts and logs it', () => {
    const dir = freshDir();
    const { logger, lines } = capture();
    const q = ReturnQueue.open(dir, { max: 3, fsync: false, logger });
    for (const n of [5, 2, 7]) q.add(ret(n));
    q.add(ret(9));
    assert.deepEqual(
      q.pending().map((r) => r.jid),
      [jid(5), jid(7), jid(9)],
    );
    assert.equal(q.dropped, 1);
    assert.deepEqual(
      files(dir),
      [jid(5), jid(7), jid(9)].map((j) => `${j}.json`),
    );
    const warn = lines.find((l) => l.level === 40 && l.msg.includes(jid(2)));
    assert.ok(warn, 'a warning names the dropped jid');
    assert.match(warn.msg, /return_queue_max=3/);

    // a return older than everything queued is itself the oldest: it is the one dropped
    q.add(ret(1));
    assert.equal(q.dropped, 2);
    assert.equal(q.has(jid(1)), false);
    assert.deepEqual(files(dir).length, 3);
  });

  it('trims at open when return_queue_max was lowered since the last run', () => {
    const dir = freshDir();
    const q = ReturnQueue.open(dir, { max: 5, fsync: false });
    for (let n = 1; n <= 5; n++) q.add(ret(n));
    const smaller = ReturnQueue.open(dir, { max: 2 });
    assert.deepEqual(
      smaller.pending().map((r) => r.jid),
      [jid(4), jid(5)],
    );
    assert.equal(smaller.dropped, 3);
    assert.deepEqual(files(dir), [`${jid(4)}.json`, `${jid(5)}.json`]);
  });

  it('refuses a max below 1 with a coded error', () => {
    assert.throws(
      () => ReturnQueue.open(freshDir(), { max: 0 }),
      (e: unknown) => isBrineError(e, 'CONFIG_VALUE'),
    );
  });
});

describe('ReturnQueue input checks', () => {
  it('refuses a jid that is not a real job time; nothing is written anywhere', () => {
    const dir = freshDir();
    const q = ReturnQueue.open(dir, { max: 5, fsync: false });
    const parent = path.dirname(dir);
    for (const bad of ['../x', `../${jid(1)}`, '99999999999999999999', '']) {
      assert.throws(
        () => q.add({ ...ret(1), jid: bad }),
        (e: unknown) => isBrineError(e, 'INVALID_JID'),
        bad,
      );
    }
    assert.deepEqual(fs.readdirSync(dir), []);
    assert.deepEqual(fs.readdirSync(parent), ['returns']);
    assert.equal(q.size, 0);
  });
});

describe('ReturnQueue recovery at open', () => {
  it('quarantines damaged files with a warning, removes stale temporaries, loads the rest', () => {
    const dir = freshDir();
    fs.mkdirSync(dir, { recursive: true });
    const good = { ...ret(4), queuedAt: 1 };
    fs.writeFileSync(path.join(dir, `${jid(4)}.json`), JSON.stringify(good));
    fs.writeFileSync(path.join(dir, `${jid(1)}.json`), '{"t":"return", trunc'); // torn JSON
    fs.writeFileSync(path.join(dir, `${jid(2)}.json`), JSON.stringify({ ...ret(3), queuedAt: 1 })); // wrong jid inside
    fs.writeFileSync(path.join(dir, `${jid(3)}.json`), JSON.stringify({ ...ret(3), retcode: 'x', queuedAt: 1 })); // bad field
    fs.writeFileSync(path.join(dir, `${jid(5)}.json`), JSON.stringify(ret(5))); // no queuedAt
    fs.writeFileSync(path.join(dir, 'notajid.json'), JSON.stringify(good));
    fs.writeFileSync(path.join(dir, `.${jid(6)}.99.abcd.tmp`), 'partial');
    fs.writeFileSync(path.join(dir, 'README'), 'left alone');

    const { logger, lines } = capture();
    const q = ReturnQueue.open(dir, { max: 10, logger });
    assert.deepEqual(q.pending(), [ret(4)]);
    assert.equal(q.quarantined, 5);
    assert.deepEqual(fs.readdirSync(dir).sort(), [`${jid(1)}.json.bad`, `${jid(2)}.json.bad`, `${jid(3)}.json.bad`, `${jid(4)}.json`, `${jid(5)}.json.bad`, 'README', 'notajid.json.bad']);
    const warnings = lines.filter((l) => l.level === 40);
    assert.equal(warnings.length, 5);
    assert.ok(warnings.every((w) => w.msg.includes('.bad')));
    // the next open finds nothing more to quarantine
    assert.equal(ReturnQueue.open(dir, { max: 10 }).quarantined, 0);
  });
});

describe('ReturnQueue disk errors', () => {
  it('keeps returns in memory when the directory is replaced by a file, and recovers later', () => {
    const dir = freshDir();
    const { logger, lines } = capture();
    const q = ReturnQueue.open(dir, { max: 10, fsync: false, logger });
    q.add(ret(1));
    fs.rmSync(dir, { recursive: true });
    fs.writeFileSync(dir, 'not a directory');

    assert.doesNotThrow(() => q.add(ret(2)));
    assert.doesNotThrow(() => q.add(ret(3)));
    assert.equal(q.persistFailures, 2);
    assert.deepEqual(q.pending(), [ret(1), ret(2), ret(3)]);
    const errors = lines.filter((l) => l.level === 50);
    assert.equal(errors.length, 1, 'one error per outage, not per return');
    assert.match(errors[0]!.msg, /will not survive a restart until disk space is freed/);
    assert.doesNotThrow(() => q.ack(jid(2)));

    // the disk is back: the next add writes its return and the ones kept in memory
    fs.rmSync(dir);
    fs.mkdirSync(dir);
    q.add(ret(4));
    assert.deepEqual(
      files(dir),
      [jid(3), jid(4)].map((j) => `${j}.json`),
    );
    assert.ok(lines.some((l) => l.level === 30 && /writing to .* again/.test(l.msg)));
    // jid 1 was written before the outage, its file went with the directory: 3 and 4 survive
    assert.deepEqual(ReturnQueue.open(dir, { max: 10 }).pending(), [ret(3), ret(4)]);
  });

  it('survives ENOSPC from an injected fs and retries the disk on the next add', () => {
    const dir = freshDir();
    let full = false;
    const enospc = (): never => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    };
    const facade: ReturnQueueFs = {
      ...fs,
      openSync: ((p: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => (full && String(p).endsWith('.tmp') ? enospc() : fs.openSync(p, flags ?? 'r', mode))) as typeof fs.openSync,
    };
    const { logger, lines } = capture();
    const q = ReturnQueue.open(dir, { max: 10, logger, fs: facade });
    full = true;
    assert.doesNotThrow(() => q.add(ret(1)));
    assert.equal(q.persistFailures, 1);
    assert.deepEqual(q.pending(), [ret(1)]);
    assert.deepEqual(files(dir), []);
    assert.deepEqual(fs.readdirSync(dir), [], 'no temporary file left behind');
    const err = lines.find((l) => l.level === 50);
    assert.ok(err);
    assert.equal(err.code, 'ENOSPC');

    full = false;
    q.add(ret(2));
    assert.equal(q.persistFailures, 1);
    assert.deepEqual(
      files(dir),
      [jid(1), jid(2)].map((j) => `${j}.json`),
    );
  });

  it('an unreadable directory at open leaves an empty queue instead of a crash', () => {
    const dir = freshDir();
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.writeFileSync(dir, 'a file where the directory should be');
    const q = ReturnQueue.open(dir, { max: 10, fsync: false });
    assert.equal(q.size, 0);
    assert.equal(q.persistFailures, 1);
    assert.doesNotThrow(() => q.add(ret(1)));
    assert.deepEqual(q.pending(), [ret(1)]);
  });
});

describe('ReturnQueue property', () => {
  type Op = { kind: 'add'; n: number; out: string } | { kind: 'ack'; n: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('add' as const), n: fc.integer({ min: 0, max: 9 }), out: fc.string({ maxLength: 8 }) }),
    fc.record({ kind: fc.constant('ack' as const), n: fc.integer({ min: 0, max: 9 }) }),
  );

  it('any add/ack sequence leaves pending(), the files and a reopen equal to a simple model', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 40 }), (max, ops) => {
        const dir = freshDir();
        const q = ReturnQueue.open(dir, { max, fsync: false });
        const model = new Map<string, Return>();
        let dropped = 0;
        for (const o of ops) {
          if (o.kind === 'ack') {
            assert.equal(q.ack(jid(o.n)), model.delete(jid(o.n)));
            continue;
          }
          q.add(ret(o.n, o.out));
          model.set(jid(o.n), ret(o.n, o.out));
          while (model.size > max) {
            model.delete([...model.keys()].sort()[0]!);
            dropped++;
          }
        }
        const expected = [...model.keys()].sort().map((k) => model.get(k)!);
        assert.deepEqual(q.pending(), expected);
        assert.equal(q.size, model.size);
        assert.equal(q.dropped, dropped);
        assert.deepEqual(
          fs.readdirSync(dir).sort(),
          expected.map((r) => `${r.jid}.json`),
        );
        assert.deepEqual(ReturnQueue.open(dir, { max }).pending(), expected);
        fs.rmSync(path.dirname(dir), { recursive: true });
      }),
      { numRuns: 150 },
    );
  });
});
