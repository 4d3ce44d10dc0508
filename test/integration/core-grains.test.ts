// Issue 22 (grains): Salt's core grains that real trees branch on, reported by a real minion to
// a real master. `brine run <id> grains.item ...` returns them in Salt's shapes, and a state tree
// written like users-formula (`grains['saltversioninfo'] >= [2018, 3, 1]`) and mysql-formula
// (`grains.pythonversion[0]`) renders its modern branch instead of failing on an undefined grain.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import os from 'node:os';
import * as path from 'node:path';
import { Cluster } from '../helpers/cluster.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

const SLS = `{%- if grains['saltversioninfo'] >= [2018, 3, 1] %}
{%-   set branch = 'modern' %}
{%- else %}
{%-   set branch = 'legacy' %}
{%- endif %}
{%- set py = 'python3' if grains.pythonversion[0] == 3 else 'python' %}
salt-branch:
  test.show_notification:
    - text: "salt {{ branch }} {{ grains.saltversion }}"
python-branch:
  test.show_notification:
    - text: "{{ py }}-apt on {{ grains.ip4_interfaces['lo'] | join(',') }}"
`;

describe('core grains through a real minion', () => {
  let cluster: Cluster;
  const run = async (args: string[]): Promise<Record<string, unknown>> => {
    const r = await cluster.brine(['run', 'g1', ...args, '--out', 'json', '-t', '60'], { timeoutMs: 90_000 });
    assert.ok(r.stdout.trim() !== '', `no output from ${args.join(' ')}: ${r.stderr}`);
    return (JSON.parse(r.stdout) as Record<string, Record<string, unknown>>).g1 ?? {};
  };

  before(async () => {
    cluster = await Cluster.create();
    write(path.join(cluster.root, 'master', 'srv', 'salt', 'branches', 'init.sls'), SLS);
    await cluster.startMaster({ auto_accept: true });
    await cluster.startMinion('g1').waitForOutput(/ready to receive requests/, 60_000);
  });
  after(() => cluster.cleanup());

  it('grains.item saltversioninfo pythonversion fqdn_ip4 ip4_interfaces has Salt shapes and this host facts', async () => {
    const g = await run(['grains.item', 'saltversioninfo', 'pythonversion', 'fqdn_ip4', 'ip4_interfaces']);
    assert.deepEqual(Object.keys(g).sort(), ['fqdn_ip4', 'ip4_interfaces', 'pythonversion', 'saltversioninfo']);
    assert.deepEqual(g.saltversioninfo, [3007, 8]);
    const py = g.pythonversion as unknown[];
    assert.equal(py.length, 5);
    assert.equal(py[0], 3);
    assert.ok(['alpha', 'beta', 'candidate', 'final'].includes(String(py[3])));
    assert.ok(Array.isArray(g.fqdn_ip4));
    const ip4 = g.ip4_interfaces as Record<string, string[]>;
    assert.deepEqual(ip4.lo, ['127.0.0.1']);
    for (const [name, list] of Object.entries(os.networkInterfaces())) {
      assert.deepEqual(
        ip4[name],
        (list ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address),
        name,
      );
    }
  });

  it("init names this host's init system by Salt's rules", async () => {
    const { init } = await run(['grains.item', 'init']);
    assert.ok(['systemd', 'sysvinit', 'upstart', 'supervisord', 'dumb-init', 'tini', 'runit', 'unknown'].includes(String(init)), String(init));
    // what Salt says here, from the two facts it reads first (the other cases: the unit tests)
    const pid1 = fs
      .readFileSync('/proc/1/cmdline', 'utf8')
      .split('\0')
      .filter((w) => w !== '');
    if (fs.existsSync('/run/systemd/system')) assert.equal(init, 'systemd');
    else if (!pid1.some((w) => /bin\/init$|supervisord|dumb-init|tini|runit|my_init/.test(w))) assert.equal(init, 'unknown', pid1.join(' '));
  });

  it('the master caches the new grains for targeting: -G saltversioninfo:0:3007 matches the minion', async () => {
    const r = await cluster.brine(['run', '-C', 'G@saltversioninfo:0:3007 and G@pythonversion:0:3', 'test.ping', '--out', 'json', '-t', '60'], { timeoutMs: 90_000 });
    assert.deepEqual(JSON.parse(r.stdout), { g1: true }, r.stderr);
  });

  it('a tree branching on saltversioninfo and pythonversion renders its modern branch', async () => {
    const ret = await run(['state.apply', 'branches']);
    const comments = Object.values(ret as Record<string, { comment: string; result: boolean }>).map((s) => s.comment);
    assert.ok(comments.includes('salt modern 3007.8'), JSON.stringify(ret));
    assert.ok(comments.includes('python3-apt on 127.0.0.1'), JSON.stringify(ret));
    assert.ok(Object.values(ret as Record<string, { result: boolean }>).every((s) => s.result === true));
  });
});
