// The remaining execution functions public formulas call from Jinja (issue 22's corpus count):
// network.calc_net and network.ip_in_subnet against Python's ipaddress on this machine,
// file.contains_regex and file.get_user/get_group on real files (salt/modules/network.py,
// salt/utils/network.py calc_net/in_subnet, salt/modules/file.py).

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const call = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, makeCtx());
const ret = async (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => {
  const r = await call(fun, arg, kwarg);
  assert.equal(r.success, true, JSON.stringify(r));
  return r.return;
};
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-corpus-helpers-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('network.calc_net / ip_in_subnet', () => {
  it("calc_net answers as str(ipaddress.ip_network(f'{ip}/{mask}', strict=False))", async () => {
    const cases: [string, string | null][] = [
      ['172.17.0.5', '255.255.255.240'],
      ['10.1.2.3', '8'],
      ['192.168.1.77', '0.0.0.255'],
      ['192.168.1.77/20', null],
      ['8.8.8.8', '0.0.0.0'],
      ['1.2.3.4', null],
    ];
    const expected = JSON.parse(
      execFileSync('python3', ['-c', 'import json,sys,ipaddress\nprint(json.dumps([str(ipaddress.ip_network(ip if m is None else f"{ip}/{m}", strict=False)) for ip, m in json.load(sys.stdin)]))'], {
        input: JSON.stringify(cases),
        encoding: 'utf8',
      }),
    );
    const got = [];
    for (const [ip, m] of cases) got.push(await ret('network.calc_net', m === null ? [ip] : [ip, m]));
    assert.deepEqual(got, expected);
    const bad = await call('network.calc_net', ['10.0.0.1', '255.0.255.0']);
    assert.equal(bad.error?.code, 'BAD_ARGUMENTS');
  });

  it('ip_in_subnet', async () => {
    assert.equal(await ret('network.ip_in_subnet', ['10.1.2.3', '10.0.0.0/8']), true);
    assert.equal(await ret('network.ip_in_subnet', ['11.1.2.3', '10.0.0.0/8']), false);
  });
});

describe('file.contains_regex / file.get_user / file.get_group', () => {
  it("searches each line with Python's re.search, after stripping lchar; a missing file is False", async () => {
    const f = path.join(tmp, 'conf');
    fs.writeFileSync(f, 'Port 22\n#PermitRootLogin yes\n  listen_addresses = *\n');
    assert.equal(await ret('file.contains_regex', [f, '^Port \\d+$']), true);
    assert.equal(await ret('file.contains_regex', [f, '^PermitRootLogin']), false);
    assert.equal(await ret('file.contains_regex', [f, '^PermitRootLogin'], { lchar: '#' }), true);
    assert.equal(await ret('file.contains_regex', [f, '^listen_addresses'], { lchar: ' ' }), true);
    assert.equal(await ret('file.contains_regex', [path.join(tmp, 'none'), '.']), false);
  });

  it("returns the owner's names; a missing path is Salt's 'path not found' error", async () => {
    const f = path.join(tmp, 'owned');
    fs.writeFileSync(f, '');
    const me = os.userInfo();
    assert.equal(await ret('file.get_user', [f]), me.username);
    const group = execFileSync('id', ['-gn'], { encoding: 'utf8' }).trim();
    assert.equal(await ret('file.get_group', [f]), group);
    const missing = await call('file.get_user', [path.join(tmp, 'none')]);
    assert.match(String(missing.error?.message), /path not found/);
  });
});
