// onlyif/unless with Salt's function syntax (state.py _run_check_onlyif/_run_check_unless and
// _run_check_function, Salt 3002+): `{fun, args, get_return, **kwargs}` over real files, and a
// check function that raises (Salt's call() fails the state: "An exception occurred in this
// state"), other states unharmed.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { byId, harness } from './harness.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-checkfun-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sls = (text: string) => ({ base: { 's.sls': text } });

describe('onlyif/unless function checks', () => {
  it('args as a list, kwargs beside fun, and the template functions (file.*, slsutil.*) as checks', async () => {
    const there = path.join(tmp, 'present');
    fs.writeFileSync(there, '');
    const h = harness(
      sls(
        [
          `by-args:\n  rec.state:\n    - onlyif:\n      - fun: file.file_exists\n        args:\n          - ${there}\n`,
          `by-args-missing:\n  rec.state:\n    - onlyif:\n      - fun: file.file_exists\n        args: [${there}.no]\n`,
          `dir-unless:\n  rec.state:\n    - unless:\n      - fun: file.directory_exists\n        path: ${tmp}\n`,
          // a function's truthy return: a non-empty string passes, an empty one fails
          `joined:\n  rec.state:\n    - onlyif:\n      - fun: file.dirname\n        path: ${there}\n`,
          'empty:\n  rec.state:\n    - onlyif:\n      - fun: file.dirname\n        path: nodir\n',
          "boolstr:\n  rec.state:\n    - unless:\n      - fun: slsutil.boolstr\n        value: false\n        'false': ''\n",
          // cmd.run sets a failing retcode: Salt's state_con retcode check treats that as a failure
          'retcode:\n  rec.state:\n    - onlyif:\n      - fun: cmd.run\n        cmd: echo hi; exit 3\n',
        ].join(''),
      ),
    );
    const r = await h.call('state.sls', ['s']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:by-args', 'run:joined', 'run:boolstr']);
    const ids = byId(r.return);
    assert.equal(ids['by-args-missing']!.comment, 'onlyif condition is false');
    assert.equal(ids['dir-unless']!.comment, 'unless condition is true');
    assert.equal(ids.empty!.comment, 'onlyif condition is false');
    assert.equal(ids.retcode!.comment, 'onlyif condition is false');
  });

  it('file.grep as a check: its retcode says found (0) or not (1), with -r over a directory (openQA dbus.sls)', async () => {
    const conf = path.join(tmp, 'system.d');
    fs.mkdirSync(conf);
    fs.writeFileSync(path.join(conf, 'a.conf'), '<limit name="max_connections_per_user">512</limit>\n');
    const h = harness(
      sls(
        [
          `found:\n  rec.state:\n    - onlyif:\n      - fun: file.grep\n        args:\n          - ${conf}/\n          - max_\n          - '-r'\n`,
          `missing:\n  rec.state:\n    - onlyif:\n      - fun: file.grep\n        args: [${conf}/, min_, '-r']\n`,
          `unless-found:\n  rec.state:\n    - unless:\n      - fun: file.grep\n        args: ['${conf}/*.conf', max_]\n`,
        ].join(''),
      ),
    );
    const r = await h.call('state.sls', ['s']);
    assert.deepEqual(h.log, ['run:found']);
    const ids = byId(r.return);
    assert.equal(ids.missing!.comment, 'onlyif condition is false');
    assert.equal(ids['unless-found']!.comment, 'unless condition is true', 'the glob is expanded as Python glob.glob does');
  });

  it('a check function that raises fails that state only, with the reason', async () => {
    const h = harness(
      sls('unknown:\n  rec.state:\n    - onlyif:\n      - fun: nosuch.fun\nbadargs:\n  rec.state:\n    - unless:\n      - fun: file.dirname\n        bogus: 1\nfine:\n  rec.state: []\n'),
    );
    const r = await h.call('state.sls', ['s']);
    assert.equal(r.retcode, 2);
    const ids = byId(r.return);
    assert.equal(ids.unknown!.result, false);
    assert.equal(ids.unknown!.comment, "An exception occurred in this state: onlyif/unless check nosuch.fun: 'nosuch.fun' is not available.");
    assert.equal(ids.badargs!.result, false);
    assert.match(ids.badargs!.comment, /^An exception occurred in this state: onlyif\/unless check file\.dirname: .*bogus/);
    assert.equal(ids.fine!.result, true);
    assert.deepEqual(h.log, ['run:fine']);
  });
});
