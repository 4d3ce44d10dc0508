// Issue 22, the requisite forms real trees use, through the real CLI (`brine call --local
// state.apply test=True`, the state worker bundle): a `require_in: - sls:` naming an SLS that
// includes the state's own requisite (prometheus-formula: no false cycle, Salt's order), a
// user-passed `__env__` (php-formula), require_any/onfail_all, and a real cycle refused with
// Salt 3007's message.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli } from '../helpers/cluster.js';

type Ret = Record<string, { result: boolean | null; comment: string; __id__: string; __run_num__: number }>;

const TREE: Record<string, string> = {
  'req/init.sls': [
    'include:\n  - req.svc\n  - req.repo\n',
    'pkg:\n  test.succeed_without_changes:\n    - require:\n      - sls: req.repo\n    - require_in:\n      - sls: req.svc\n    - __env__:\n      - LC_ALL: C.UTF-8\n',
    'fails:\n  test.fail_without_changes: []\n',
    'works:\n  test.succeed_without_changes: []\n',
    'any:\n  test.succeed_without_changes:\n    - require_any:\n      - fails\n      - works\n',
    'rescue:\n  test.succeed_without_changes:\n    - onfail_all:\n      - fails\n      - works\n',
  ].join(''),
  'req/svc.sls': 'include:\n  - req.conf\nsvc:\n  test.succeed_without_changes: []\n',
  'req/conf.sls': 'include:\n  - req.repo\nconf:\n  test.succeed_without_changes: []\n',
  'req/repo.sls': 'repo:\n  test.succeed_without_changes: []\n',
  'loop.sls': 'a:\n  test.nop:\n    - require:\n      - test: b\nb:\n  test.nop:\n    - watch:\n      - sls: loop\n',
};

describe('requisite forms of real trees, masterless through the CLI', () => {
  let cluster: Cluster;
  const apply = (sls: string) => runCli(['call', '-c', cluster.minionConfigDir('rq'), '--local', '--out', 'json', 'state.apply', sls, 'test=True']);

  before(async () => {
    cluster = await Cluster.create();
    cluster.writeMinionConfig('rq', { file_client: 'local' });
    const root = path.join(cluster.root, 'minions', 'rq', 'srv', 'salt');
    for (const [file, text] of Object.entries(TREE)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
  });
  after(() => cluster.cleanup());

  it('compiles and orders as Salt: repo, pkg, then svc; require_any runs, onfail_all is skipped', async () => {
    const r = await apply('req');
    const ret = (JSON.parse(r.stdout) as { local: Ret }).local;
    assert.equal(typeof ret, 'object', r.stdout);
    const e = Object.fromEntries(Object.values(ret).map((v) => [v.__id__, v]));
    assert.ok(e.repo!.__run_num__ < e.pkg!.__run_num__ && e.pkg!.__run_num__ < e.svc!.__run_num__, JSON.stringify(e));
    // conf is only included by svc: the require_in on `sls: req.svc` does not order it after pkg
    assert.ok(e.conf!.__run_num__ < e.pkg!.__run_num__, JSON.stringify(e));
    assert.equal(e.pkg!.result, true);
    assert.equal(e.fails!.result, false);
    assert.equal(e.any!.result, true, e.any!.comment);
    assert.equal(e.rescue!.result, true);
    assert.equal(e.rescue!.comment, 'State was not run because onfail req did not change');
    assert.equal(r.code, 1, 'a failed state fails the call');
  });

  it("a cycle (a state watching its own SLS) is refused with Salt 3007's message and nothing runs", async () => {
    const r = await apply('loop');
    const ret = (JSON.parse(r.stdout) as { local: string[] }).local;
    assert.deepEqual(ret, ["Recursive requisites were found: ({'SLS': 'loop', 'ID': 'a'}, 'require', {'SLS': 'loop', 'ID': 'b'}), ({'SLS': 'loop', 'ID': 'b'}, 'watch', {'SLS': 'loop', 'ID': 'a'})"]);
    assert.match(r.stderr, /STATE_COMPILE_FAILED/);
  });
});
