import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { createDefaultRegistry, parseCpuinfo, parseMeminfo } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const run = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, makeCtx());

describe('status', () => {
  it("uptime: seconds from /proc/uptime, boot time in since_t/since_iso, Salt's days and H:M", async () => {
    const procUp = Math.floor(Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]));
    const r = (await run('status.uptime', [])).return as Record<string, unknown>;
    const seconds = r.seconds as number;
    assert.ok(Math.abs(seconds - procUp) <= 2, `${seconds} vs ${procUp}`);
    assert.ok(Math.abs((r.since_t as number) - (Date.now() / 1000 - seconds)) <= 2);
    assert.equal(new Date(`${r.since_iso as string}Z`).getTime() / 1000 - (r.since_t as number) < 1, true);
    assert.equal(r.days, Math.floor(seconds / 86400));
    const rest = seconds % 86400;
    assert.equal(r.time, `${Math.floor(rest / 3600)}:${Math.floor((rest % 3600) / 60)}`);
    assert.equal(typeof r.users, 'number', 'who is installed here');
  });

  it("loadavg has Salt's keys with the kernel's values", async () => {
    const r = (await run('status.loadavg', [])).return as Record<string, number>;
    assert.deepEqual(Object.keys(r), ['1-min', '5-min', '15-min']);
    const proc = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').map(Number);
    assert.ok(Math.abs(r['15-min']! - proc[2]!) < 1);
  });

  it('meminfo parses /proc/meminfo into {key: {value, unit}}', async () => {
    assert.deepEqual(parseMeminfo('MemTotal:       16318412 kB\nHugePages_Total:       0\n'), {
      MemTotal: { value: '16318412', unit: 'kB' },
      HugePages_Total: { value: '0' },
    });
    const r = (await run('status.meminfo', [])).return as Record<string, { value: string; unit?: string }>;
    assert.equal(Number(r.MemTotal?.value) * 1024, os.totalmem());
    assert.equal(r.MemTotal?.unit, 'kB');
  });

  it('cpuinfo parses key: value lines with flags as a list', async () => {
    assert.deepEqual(parseCpuinfo('processor\t: 0\nflags\t\t: fpu vme sse\nmodel name\t: X: Y\n\nprocessor\t: 1\n'), {
      processor: '1',
      flags: ['fpu', 'vme', 'sse'],
      'model name': 'X: Y',
    });
    const r = (await run('status.cpuinfo', [])).return as Record<string, unknown>;
    assert.equal(r.processor, String(os.cpus().length - 1));
  });

  it('diskusage: bytes per mount, by path or fstype glob, as statfs reports them', async () => {
    const all = (await run('status.diskusage', [])).return as Record<string, Record<string, unknown>>;
    assert.ok(all['/'], 'the root mount is listed');
    const root = (await run('status.diskusage', ['/'])).return as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(root), ['/']);
    const s = fs.statfsSync('/');
    const r = root['/']!;
    assert.equal(r.total, s.blocks * s.bsize);
    assert.ok(Math.abs((r.available as number) - s.bavail * s.bsize) < 64 * 1024 * 1024);
    const used = r.used as number;
    assert.equal(r.capacity, `${Math.ceil((used * 100) / (used + (r.available as number)))}%`);
    const mount = fs
      .readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' '))
      .filter((c) => c[1] === '/')
      .pop()!;
    assert.equal(r.filesystem, mount[0]);
    assert.equal(r.fstype, mount[2]);
    const procOnly = (await run('status.diskusage', ['pro?'])).return as Record<string, Record<string, unknown>>;
    assert.ok(Object.keys(procOnly).includes('/proc'));
    assert.ok(Object.values(procOnly).every((v) => v.fstype === 'proc'));
    assert.equal((await run('status.diskusage', ['/no/such/mount'])).error?.code, 'EXEC_FAILED');
  });
});
