// iptables.* act on a real network namespace made for this test (`ip netns add`), so the host's
// rules are untouched: `iptables` and `iptables-save` on PATH are two-line wrappers that run the
// real binaries inside the namespace (the only indirection; the rules are real kernel state).
// Shapes (changes {locale: name}, comments) from salt/states/iptables.py append/insert/delete/
// chain_present/chain_absent/set_policy and salt/modules/iptables.py build_rule.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildRule } from '../../../../src/state/modules/external/iptables-rule.js';
import { privilegedSkip } from '../../../helpers/privileged.js';
import { runState } from '../state-ctx.js';
import { onPath } from '../../../helpers/paths.js';

const reason =
  process.getuid?.() !== 0 ? 'needs root to create a network namespace' : !onPath('ip') || !onPath('iptables') ? 'ip or iptables is not installed (Debian: apt-get install iproute2 iptables)' : false;
const skip = privilegedSkip('iptables states', reason);

describe('build_rule (pure)', () => {
  it('orders options as Salt does: interface, protocol, matches, ports, comment, others in order, the jump and its options last', () => {
    assert.equal(buildRule({ jump: 'ACCEPT', proto: 'tcp', dport: 22, source: '10.0.0.0/8', if: 'eth0' }), '-i eth0 -p tcp --dport 22 --source 10.0.0.0/8 --jump ACCEPT');
    assert.equal(buildRule({ match: 'conntrack', ctstate: 'RELATED,ESTABLISHED', jump: 'ACCEPT' }), '-m conntrack --ctstate RELATED,ESTABLISHED --jump ACCEPT');
    assert.equal(buildRule({ connstate: 'NEW', jump: 'LOG', 'log-prefix': 'new conn: ' }), '-m state --state NEW --jump LOG --log-prefix "new conn: "');
    // Salt writes every jump option with two dashes, 'j' included ('--j DROP', which iptables takes as --jump)
    assert.equal(buildRule({ source: '! 10.1.1.1', comment: 'keep out', j: 'DROP' }), '-m comment --comment "keep out" ! --source 10.1.1.1 --j DROP');
    assert.equal(buildRule({ proto: 'udp', dports: [53, 5353], jump: 'ACCEPT' }), '-p udp -m multiport --dports 53,5353 --jump ACCEPT');
    assert.throws(() => buildRule({ dports: [1, 2] }), /proto must be specified/);
  });
});

describe('iptables states in a network namespace', { skip }, () => {
  const ns = `brine-ipt-${randomBytes(3).toString('hex')}`;
  let dir = '';
  let savedPath = '';
  const rules = () => execFileSync('ip', ['netns', 'exec', ns, 'iptables-save'], { encoding: 'utf8' });

  before(() => {
    execFileSync('ip', ['netns', 'add', ns]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-ipt-'));
    for (const prog of ['iptables', 'iptables-save']) {
      const real = execFileSync('sh', ['-c', `command -v ${prog}`], { encoding: 'utf8' }).trim();
      fs.writeFileSync(path.join(dir, prog), `#!/bin/sh\nexec ip netns exec ${ns} ${real} "$@"\n`, { mode: 0o755 });
    }
    savedPath = process.env.PATH ?? '';
    process.env.PATH = `${dir}:${savedPath}`;
  });
  after(() => {
    process.env.PATH = savedPath;
    spawnSync('ip', ['netns', 'del', ns]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const ipt = () => path.join(dir, 'iptables');
  const ssh = { name: 'allow-ssh', chain: 'INPUT', proto: 'tcp', dport: 22, jump: 'ACCEPT' };

  it('append: test=True says it needs to be set, a run appends it (changes {locale: name}), a second run finds it', async () => {
    const cmd = `${ipt()} --wait -t filter -A INPUT  -p tcp --dport 22 --jump ACCEPT`;
    const t = await runState('iptables.append', ssh, { test: true });
    assert.deepEqual(t, { name: 'allow-ssh', result: null, changes: {}, comment: `iptables rule for allow-ssh needs to be set (${cmd}) for ipv4` });
    assert.doesNotMatch(rules(), /dport 22/, 'test=True changed nothing');
    const r = await runState('iptables.append', ssh);
    assert.deepEqual(r, { name: 'allow-ssh', result: true, changes: { locale: 'allow-ssh' }, comment: `Set iptables rule for allow-ssh to: ${cmd} for ipv4` });
    assert.match(rules(), /^-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT$/m);
    const again = await runState('iptables.append', ssh);
    assert.deepEqual(again, { name: 'allow-ssh', result: true, changes: {}, comment: `iptables rule for allow-ssh already set (${cmd}) for ipv4` });
    assert.equal(rules().match(/dport 22/g)?.length, 1, 'not appended twice');
  });

  it('insert puts the rule at its position; delete removes it, then finds it already absent', async () => {
    const lo = { name: 'allow-lo', chain: 'INPUT', position: 1, if: 'lo', jump: 'ACCEPT' };
    const ins = await runState('iptables.insert', lo);
    assert.equal(ins.result, true);
    assert.deepEqual(ins.changes, { locale: 'allow-lo' });
    assert.equal(ins.comment, `Set iptables rule for allow-lo to: ${ipt()} --wait -t filter -I INPUT 1 -i lo --jump ACCEPT for ipv4`);
    const input = rules()
      .split('\n')
      .filter((l) => l.startsWith('-A INPUT'));
    assert.equal(input[0], '-A INPUT -i lo -j ACCEPT', 'inserted first');
    const delCmd = `${ipt()} --wait -t filter -D INPUT  -i lo --jump ACCEPT`;
    const { position: _p, ...byRule } = lo;
    const t = await runState('iptables.delete', byRule, { test: true });
    assert.deepEqual(t, { name: 'allow-lo', result: null, changes: {}, comment: `iptables rule for allow-lo needs to be deleted for ipv4 (${delCmd})` });
    const d = await runState('iptables.delete', byRule);
    assert.deepEqual(d, { name: 'allow-lo', result: true, changes: { locale: 'allow-lo' }, comment: `Delete iptables rule for allow-lo ${delCmd}` });
    assert.doesNotMatch(rules(), /-i lo/);
    const gone = await runState('iptables.delete', byRule);
    assert.deepEqual(gone, { name: 'allow-lo', result: true, changes: {}, comment: `iptables rule for allow-lo already absent for ipv4 (${delCmd})` });
  });

  it("the rules: form appends each rule, lists the locales changed and joins the comments (Salt's append with rules)", async () => {
    const args = {
      name: 'web',
      chain: 'INPUT',
      rules: [
        { name: 'web-http', proto: 'tcp', dport: 80, jump: 'ACCEPT' },
        { name: 'web-https', proto: 'tcp', dport: 443, jump: 'ACCEPT' },
      ],
    };
    const r = await runState('iptables.append', args);
    assert.equal(r.result, true);
    assert.deepEqual(r.changes, { locale: ['web-http', 'web-https'] });
    assert.equal(
      r.comment,
      [
        `Set iptables rule for web-http to: ${ipt()} --wait -t filter -A INPUT  -p tcp --dport 80 --jump ACCEPT for ipv4`,
        `Set iptables rule for web-https to: ${ipt()} --wait -t filter -A INPUT  -p tcp --dport 443 --jump ACCEPT for ipv4`,
      ].join('\n'),
    );
    assert.match(rules(), /--dport 80 -j ACCEPT/);
    assert.match(rules(), /--dport 443 -j ACCEPT/);
    const again = await runState('iptables.append', args);
    assert.deepEqual(again.changes, {}, 'nothing changed: no locale list');
    assert.equal(again.result, true);
    await runState('iptables.delete', args);
    assert.doesNotMatch(rules(), /--dport (80|443)/);
  });

  it('a rule iptables refuses fails with the attempted command', async () => {
    const r = await runState('iptables.append', { name: 'bad', chain: 'NOSUCHCHAIN', jump: 'ACCEPT' });
    assert.equal(r.result, false);
    const [salt, why] = r.comment.split(' for ipv4\n');
    assert.equal(`${salt} for ipv4`, `Failed to set iptables rule for bad.\nAttempted rule was ${ipt()} --wait -t filter -A NOSUCHCHAIN  --jump ACCEPT for ipv4`);
    assert.match(why ?? '', /NOSUCHCHAIN|No chain/i, "iptables' own reason follows Salt's comment");
  });

  it('chain_present creates a chain once; chain_absent flushes and deletes it', async () => {
    const t = await runState('iptables.chain_present', { name: 'LOGDROP' }, { test: true });
    assert.deepEqual(t, { name: 'LOGDROP', result: null, changes: {}, comment: 'iptables LOGDROP chain in filter table needs to be set for ipv4' });
    const c = await runState('iptables.chain_present', { name: 'LOGDROP' });
    assert.deepEqual(c, { name: 'LOGDROP', result: true, changes: { locale: 'LOGDROP' }, comment: 'iptables LOGDROP chain in filter table create success for ipv4' });
    assert.match(rules(), /^:LOGDROP - \[0:0\]$/m);
    assert.equal((await runState('iptables.chain_present', { name: 'LOGDROP' })).comment, 'iptables LOGDROP chain is already exist in filter table for ipv4');
    await runState('iptables.append', { name: 'in-chain', chain: 'LOGDROP', jump: 'DROP' });
    const a = await runState('iptables.chain_absent', { name: 'LOGDROP' });
    assert.deepEqual(a, { name: 'LOGDROP', result: true, changes: { locale: 'LOGDROP' }, comment: 'iptables LOGDROP chain in filter table delete success for ipv4' });
    assert.doesNotMatch(rules(), /LOGDROP/);
    assert.equal((await runState('iptables.chain_absent', { name: 'LOGDROP' })).comment, 'iptables LOGDROP chain is already absent in filter table for ipv4');
  });

  it('set_policy changes the policy and saves the rules to the file given', async () => {
    const file = path.join(dir, 'rules.v4');
    const args = { name: 'fwd-drop', chain: 'FORWARD', policy: 'DROP', save: file };
    const t = await runState('iptables.set_policy', args, { test: true });
    assert.deepEqual(t, { name: 'fwd-drop', result: null, changes: {}, comment: 'iptables default policy for chain FORWARD on table filter for ipv4 needs to be set to DROP' });
    const r = await runState('iptables.set_policy', args);
    assert.deepEqual(r, { name: 'fwd-drop', result: true, changes: { locale: 'fwd-drop' }, comment: 'Set and saved default policy for FORWARD to DROP family ipv4' });
    assert.match(rules(), /^:FORWARD DROP/m);
    assert.match(fs.readFileSync(file, 'utf8'), /^:FORWARD DROP/m, 'the saved file holds the new policy');
    const again = await runState('iptables.set_policy', args);
    assert.equal(again.comment, 'iptables default policy for chain FORWARD on table filter for ipv4 already set to DROP');
  });
});
