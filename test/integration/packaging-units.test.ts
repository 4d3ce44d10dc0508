// Issue 11, packaging: the systemd units under packaging/systemd parse (systemd-analyze verify,
// with ExecStart pointed at this checkout's CLI), carry the restart backoff and the hardening
// packaging/README.md documents, the minion keeps the freedom its modules need, and every
// directive a unit uses is explained in the README.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot, type CliResult } from '../helpers/cluster.js';
import { privilegedSkip } from '../helpers/privileged.js';

const REPO = repoRoot();
const UNIT_DIR = path.join(REPO, 'packaging', 'systemd');
const UNITS = ['brine-master.service', 'brine-minion.service', 'brine-api.service'] as const;

type Unit = Map<string, Map<string, string[]>>;

/** Sections of key -> values (a key may repeat); comments and blank lines dropped. */
function parseUnit(text: string): Unit {
  const unit: Unit = new Map();
  let section: Map<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = new Map();
      unit.set(header[1]!, section);
      continue;
    }
    const eq = line.indexOf('=');
    assert.ok(section && eq > 0, `not a unit file line: ${line}`);
    const key = line.slice(0, eq);
    section.set(key, [...(section.get(key) ?? []), line.slice(eq + 1)]);
  }
  return unit;
}

const units = Object.fromEntries(UNITS.map((u) => [u, parseUnit(fs.readFileSync(path.join(UNIT_DIR, u), 'utf8'))])) as Record<(typeof UNITS)[number], Unit>;
const value = (unit: Unit, section: string, key: string) => unit.get(section)?.get(key)?.at(-1);

function run(cmd: string, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null, stdout, stderr });
    });
  });
}

function systemdAnalyze(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = path.join(dir, 'systemd-analyze');
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}
const analyze = systemdAnalyze();
// CI (BRINE_REQUIRE_PRIVILEGED) installs systemd: there a missing systemd-analyze is a failure
const noAnalyze = privilegedSkip('systemd unit verification', analyze === undefined ? 'systemd-analyze is not installed (apt-get install systemd)' : false);

/** Copies of the units whose ExecStart runs this checkout's CLI (verify wants an existing binary). */
function unitsForVerify(dir: string, extra: Record<string, string> = {}): string[] {
  const files: string[] = [];
  for (const [name, text] of [...UNITS.map((u) => [u, fs.readFileSync(path.join(UNIT_DIR, u), 'utf8')] as const), ...Object.entries(extra)]) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text.replaceAll('/usr/local/bin/brine', `${process.execPath} ${path.join(REPO, 'bin', 'brine.js')}`));
    files.push(file);
  }
  return files;
}

/** verify's complaints, minus the two keys systemd < 254 does not know yet (documented there). */
function complaints(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.trim() !== '')
    .filter((l) => !/Unknown key '?(RestartSteps|RestartMaxDelaySec)'? in section '?\[?Service\]?'?, ignoring/.test(l));
}

describe('systemd units', () => {
  it('every unit restarts on failure with backoff, and not for usage or configuration errors', () => {
    for (const name of UNITS) {
      const u = units[name];
      assert.equal(value(u, 'Service', 'Restart'), 'on-failure', name);
      assert.match(value(u, 'Service', 'RestartSec') ?? '', /^\d+s$/, name);
      assert.ok(Number(value(u, 'Service', 'RestartSteps')) > 0, name);
      assert.match(value(u, 'Service', 'RestartMaxDelaySec') ?? '', /^\d+min$/, name);
      assert.deepEqual(value(u, 'Service', 'RestartPreventExitStatus')?.split(' '), ['64', '78'], name);
      // StartLimit* belong in [Unit]; in [Service] systemd ignores them
      assert.ok(value(u, 'Unit', 'StartLimitIntervalSec') && value(u, 'Unit', 'StartLimitBurst'), name);
      assert.equal(u.get('Service')?.has('StartLimitIntervalSec'), false, name);
      assert.equal(value(u, 'Install', 'WantedBy'), 'multi-user.target', name);
      assert.match(value(u, 'Service', 'ExecStart') ?? '', new RegExp(`^/usr/local/bin/brine ${name.slice('brine-'.length, -'.service'.length)}$`));
    }
  });

  it('the master and the API are sandboxed; neither denies the W^X memory V8 needs', () => {
    for (const name of ['brine-master.service', 'brine-api.service'] as const) {
      const u = units[name];
      for (const [key, want] of Object.entries({ NoNewPrivileges: 'yes', ProtectHome: 'yes', PrivateTmp: 'yes', PrivateDevices: 'yes', ProtectKernelModules: 'yes', RestrictSUIDSGID: 'yes' })) {
        assert.equal(value(u, 'Service', key), want, `${name} ${key}`);
      }
      assert.ok(value(u, 'Service', 'CapabilityBoundingSet'), name);
      assert.equal(u.get('Service')?.has('MemoryDenyWriteExecute'), false, `${name}: MemoryDenyWriteExecute kills V8's JIT`);
    }
    assert.equal(value(units['brine-master.service'], 'Service', 'ProtectSystem'), 'full');
    // /etc is read-only under ProtectSystem=full: the master's pki_dir must be writable
    assert.match(value(units['brine-master.service'], 'Service', 'ReadWritePaths') ?? '', /(^|\s)-?\/etc\/brine\/pki(\s|$)/);
    assert.equal(value(units['brine-api.service'], 'Service', 'ProtectSystem'), 'strict');
  });

  it('the minion keeps what pkg, service, user and file.* need, and lets a job outlive a minion restart', () => {
    const u = units['brine-minion.service'];
    const sandboxing = [
      'ProtectSystem',
      'ProtectHome',
      'PrivateTmp',
      'NoNewPrivileges',
      'PrivateDevices',
      'ReadOnlyPaths',
      'InaccessiblePaths',
      'CapabilityBoundingSet',
      'SystemCallFilter',
      'RestrictSUIDSGID',
      'ProtectKernelModules',
      'ProtectKernelTunables',
      'ProtectClock',
      'ProtectHostname',
      'PrivateUsers',
      'DynamicUser',
      'User',
      'MemoryDenyWriteExecute',
    ];
    assert.deepEqual(
      sandboxing.filter((k) => u.get('Service')?.has(k)),
      [],
    );
    assert.equal(value(u, 'Service', 'KillMode'), 'process');
  });

  it('packaging/README.md explains every directive the units use', () => {
    const readme = fs.readFileSync(path.join(REPO, 'packaging', 'README.md'), 'utf8');
    const missing: string[] = [];
    for (const name of UNITS) {
      for (const section of units[name].values()) for (const key of section.keys()) if (!readme.includes(`\`${key}=`)) missing.push(`${name}: ${key}`);
    }
    assert.deepEqual([...new Set(missing)], []);
  });

  it('systemd-analyze verify accepts the units and rejects a misspelt directive', { skip: noAnalyze }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-units-'));
    try {
      const files = unitsForVerify(dir);
      const ok = await run(analyze!, ['verify', ...files]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.deepEqual(complaints(ok.stderr), []);
      // the filter above must not hide real mistakes
      const typo = fs.readFileSync(path.join(UNIT_DIR, 'brine-master.service'), 'utf8').replace('ProtectSystem=full', 'ProtectSytem=full');
      const bad = await run(analyze!, ['verify', ...unitsForVerify(dir, { 'brine-typo.service': typo }).slice(-1)]);
      assert.match(complaints(bad.stderr).join('\n'), /ProtectSytem/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('systemd-analyze security rates the master and the API OK (exposure below 4)', { skip: noAnalyze }, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-units-'));
    try {
      unitsForVerify(dir);
      for (const name of ['brine-master.service', 'brine-api.service']) {
        const r = await run(analyze!, ['security', '--offline=true', path.join(dir, name)]);
        if (r.code !== 0 && /offline/.test(r.stderr)) {
          t.skip('this systemd-analyze has no --offline (systemd < 250)');
          return;
        }
        const level = /Overall exposure level for \S+: ([\d.]+)/.exec(r.stdout)?.[1];
        assert.ok(level !== undefined, r.stdout + r.stderr);
        assert.ok(Number(level) < 4, `${name}: exposure ${level}\n${r.stdout}`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
