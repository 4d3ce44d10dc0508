// sysctl.present against the real kernel: each scenario runs in a child process inside its own
// network namespace (unshare -n), so `sysctl -w net.*` changes that namespace only and the
// host's values are never touched. The persisted file is a temp file (the state's config arg).

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSysctlConfig, sanitizeSysctlValue } from '../../../src/modules/sysctl-module.js';
import { privilegedSkip } from '../../helpers/privileged.js';
import { onPath } from '../../helpers/paths.js';

const reason =
  process.getuid?.() !== 0
    ? 'needs root to create a network namespace'
    : !onPath('unshare') || !onPath('sysctl')
      ? 'unshare (util-linux) and sysctl (procps) are needed'
      : spawnSync('unshare', ['-n', 'true']).status !== 0
        ? 'unshare -n is not permitted here'
        : false;
const skip = privilegedSkip('sysctl states', reason);

const stateCtxModule = path.join(path.dirname(fileURLToPath(import.meta.url)), 'state-ctx.js');

interface Step {
  args: Record<string, unknown>;
  test?: boolean;
}
interface Outcome {
  result: { name: string; result: boolean | null; changes: Record<string, unknown>; comment: string };
  /** The running value after the step, read with sysctl -n in the same namespace. */
  running: string;
}

/** Runs the steps one after another in one fresh network namespace (one child process). */
function inNetns(key: string, steps: Step[], setup: string[] = []): Outcome[] {
  const script = `
    import { runState } from ${JSON.stringify(stateCtxModule)};
    import { execFileSync } from 'node:child_process';
    for (const a of ${JSON.stringify(setup)}) execFileSync('sysctl', ['-w', a]);
    const out = [];
    for (const s of ${JSON.stringify(steps)}) {
      const result = await runState('sysctl.present', s.args, { test: !!s.test });
      out.push({ result, running: execFileSync('sysctl', ['-n', ${JSON.stringify(key)}], { encoding: 'utf8' }).trim() });
    }
    process.stdout.write(JSON.stringify(out));
  `;
  const r = spawnSync('unshare', ['-n', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Outcome[];
}

describe('sysctl config files (pure)', () => {
  it('reads key = value and key=value lines, skips comments, and sanitizes blanks to one tab as procfs prints them', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-sysctl-'));
    try {
      const f = path.join(dir, 'x.conf');
      fs.writeFileSync(f, '# c\nvm.swappiness=10\n  net.ipv4.ip_forward = 1\n#net.x = 2\n');
      assert.deepEqual(readSysctlConfig(f), { 'vm.swappiness': '10', 'net.ipv4.ip_forward': '1' });
      assert.deepEqual(readSysctlConfig(path.join(dir, 'missing.conf')), [], "Salt's show(config_file) gives [] for a missing file");
      assert.equal(sanitizeSysctlValue('1024  65000'), '1024\t65000');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sysctl.present in a network namespace', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-sysctl-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("test=True, then set: Salt's comments and {name: value} changes; the file and the kernel both change; a second run is 'already set'", () => {
    const config = path.join(dir, 'sysctl.d', '99-salt.conf');
    const name = 'net.ipv4.ip_forward';
    const [dry, set, again, dryAfter] = inNetns(
      name,
      [{ args: { name, value: 1, config }, test: true }, { args: { name, value: 1, config } }, { args: { name, value: 1, config } }, { args: { name, value: 1, config }, test: true }],
      [`${name}=0`],
    );
    // salt/states/sysctl.py present(): test mode with the value set nowhere -> "would be changed"
    // (the running value is '0', so `current` is truthy and not configured -> "set to be changed").
    assert.deepEqual(dry!.result, { name, result: null, changes: {}, comment: `Sysctl option ${name} set to be changed to 1` });
    assert.equal(dry!.running, '0', 'test=True changes nothing');
    // persist() returned 'Updated' -> changes {name: value}, "Updated sysctl value name = value"
    assert.deepEqual(set!.result, { name, result: true, changes: { [name]: 1 }, comment: `Updated sysctl value ${name} = 1` });
    assert.equal(set!.running, '1');
    // persist() creates the missing directory and file with Salt's three-line header
    assert.equal(fs.readFileSync(config, 'utf8'), `#\n# Kernel sysctl configuration\n#\n${name} = 1\n`);
    assert.deepEqual(again!.result, { name, result: true, changes: {}, comment: `Sysctl value ${name} = 1 is already set` });
    assert.deepEqual(dryAfter!.result, { name, result: true, changes: {}, comment: `Sysctl value ${name} = 1 is already set` });
  });

  it('a value right in the file but not in the kernel is applied; a changed value edits its line in place; a multi-value parameter with spaces is stable', () => {
    const config = path.join(dir, 'edit.conf');
    const name = 'net.ipv4.ip_local_port_range';
    fs.writeFileSync(config, `# keep me\nnet.ipv4.tcp_syncookies = 1\n${name} = 20000 30000\n`);
    const [dry, fix, change, stable] = inNetns(
      name,
      [
        { args: { name, value: '20000 30000', config }, test: true },
        { args: { name, value: '20000   30000', config } },
        { args: { name, value: '21000 31000', config } },
        { args: { name, value: '21000 31000', config } },
      ],
      [`${name}=10000 11000`],
    );
    // configured and current but different -> falls through to "would be changed"
    assert.deepEqual(dry!.result, { name, result: null, changes: {}, comment: `Sysctl option ${name} would be changed to 20000 30000` });
    assert.equal(fix!.result.comment, `Updated sysctl value ${name} = 20000   30000`);
    assert.equal(fix!.running, '20000\t30000');
    assert.deepEqual(change!.result.changes, { [name]: '21000 31000' });
    assert.equal(change!.running, '21000\t31000');
    assert.equal(fs.readFileSync(config, 'utf8'), `# keep me\nnet.ipv4.tcp_syncookies = 1\n${name} = 21000 31000\n`, 'the line is replaced where it was; other lines stay');
    assert.deepEqual(stable!.result, { name, result: true, changes: {}, comment: `Sysctl value ${name} = 21000 31000 is already set` });
  });

  it('an unknown parameter fails with Salt\'s "Failed to set" comment', () => {
    const config = path.join(dir, 'bad.conf');
    const [bad] = inNetns('net.ipv4.ip_forward', [{ args: { name: 'net.ipv4.no_such_knob', value: 1, config } }]);
    assert.equal(bad!.result.result, false);
    assert.equal(bad!.result.comment, 'Failed to set net.ipv4.no_such_knob to 1: sysctl net.ipv4.no_such_knob does not exist');
  });
});
