// threats.md #34: which directory states the start-up check refuses (integration tests run the
// real daemons; these pin the rules on real directories, one per case).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkPrivateDirs } from '../../../src/util/private-dirs.js';
import { isBrineError } from '../../../src/util/errors.js';

const me = { uid: os.userInfo().uid, userName: os.userInfo().username };
const isRoot = me.uid === 0;

describe('checkPrivateDirs', () => {
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-dirs-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const dir = (rel: string, mode: number): string => {
    const p = path.join(tmp, rel);
    fs.mkdirSync(p, { recursive: true });
    fs.chmodSync(p, mode);
    return p;
  };
  const refused = (p: string, own = me): string => {
    try {
      checkPrivateDirs([{ option: 'sock_dir', path: p }], own);
    } catch (err) {
      assert.ok(isBrineError(err, 'UNSAFE_DIR'), String(err));
      return err.message;
    }
    assert.fail(`${p} was accepted`);
  };

  it('a directory that does not exist yet is judged by the existing directories it would be created in', () => {
    checkPrivateDirs([{ option: 'sock_dir', path: path.join(tmp, 'missing', 'deeper') }], me);
    // Under a world-writable parent without the sticky bit another user could rename the
    // directory the daemon creates and plant their own socket: refused, naming the parent.
    const open = dir('open', 0o777);
    assert.match(refused(path.join(open, 'brine')), /refusing to start: .*\/open \(above sock_dir .*\/open\/brine\) is writable by group and others \(mode 0777\).*Fix: chmod go-w .*\/open/);
    assert.match(refused(path.join(open, 'a', 'b')), /\/open \(above sock_dir .*\/open\/a\/b\) is writable/);
    // With the sticky bit, as /tmp has, nobody else can rename what the daemon creates there.
    const sticky = dir('sticky-parent', 0o1777);
    checkPrivateDirs([{ option: 'sock_dir', path: path.join(sticky, 'brine') }], me);
    fs.chmodSync(open, 0o755);
  });

  it('accepts 0700 and 0755, refuses group- or world-writable, even with the sticky bit', () => {
    checkPrivateDirs(
      [
        { option: 'sock_dir', path: dir('a', 0o700) },
        { option: 'pki_dir', path: dir('b', 0o755) },
      ],
      me,
    );
    assert.match(refused(dir('c', 0o775)), /sock_dir .*\/c is writable by its group \(mode 0775\).*Fix: chmod go-w /);
    assert.match(refused(dir('d', 0o1777)), /is writable by group and others \(mode 1777\)/);
  });

  it('an ancestor may be world-writable only with the sticky bit, as /tmp is', () => {
    const sticky = dir('sticky', 0o1777);
    checkPrivateDirs([{ option: 'sock_dir', path: dir('sticky/run', 0o700) }], me);
    fs.chmodSync(sticky, 0o777);
    assert.match(refused(path.join(sticky, 'run')), /\/sticky \(above sock_dir .*\/sticky\/run\) is writable by group and others/);
    fs.chmodSync(sticky, 0o755);
  });

  it('an owner other than root, the daemon or its user: account is refused; the user: account is trusted', { skip: isRoot ? false : 'needs root to chown' }, () => {
    const p = dir('owned', 0o700);
    fs.chownSync(p, 65534, 65534);
    assert.match(refused(p), /is owned by uid 65534, not by root, .*Fix: chown root /);
    checkPrivateDirs([{ option: 'sock_dir', path: p }], { ...me, alsoTrusted: 65534 });
  });
});
