// The `sysctl` module for Linux (Salt's linux_sysctl): read kernel parameters with `sysctl`,
// set them with `sysctl -w`, and persist them in a sysctl.conf-style file, as Salt does.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BrineError } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import { checkName, runArgv, runChecked, tail, which } from './host-tools.js';
import type { ModuleFunction } from './types.js';

// A kernel parameter name: dotted (net.ipv4.ip_forward) or slashed, never an option.
const SYSCTL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:/*-]*$/;
// systemd-sysctl stopped reading /etc/sysctl.conf in systemd 207 (Salt's default_config).
const SYSTEMD_MARKER = '/run/systemd/system';

function requireSysctl(fun: string): void {
  if (!which('sysctl')) throw new BrineError('EXEC_FAILED', `${fun}: the sysctl program is not installed on this host; install procps (Debian: apt-get install procps)`);
}

/** Salt's default_config: /etc/sysctl.d/99-salt.conf under systemd >= 207, else /etc/sysctl.conf. */
export async function defaultSysctlConfig(marker = SYSTEMD_MARKER): Promise<string> {
  if (existsSync(marker) && which('systemctl')) {
    const r = await runArgv('sysctl.default_config', ['systemctl', '--version']);
    const m = /^systemd (\d+)/m.exec(r.stdout);
    if (m && Number(m[1]) >= 207) return '/etc/sysctl.d/99-salt.conf';
  }
  return '/etc/sysctl.conf';
}

/** The `key = value` settings of a config file; [] when the file does not exist (Salt's show(config_file)). */
export function readSysctlConfig(file: string): Record<string, string> | [] {
  if (!existsSync(file)) return [];
  const out: Record<string, string> = {};
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || !line.includes('=')) continue;
    const i = line.indexOf('=');
    out[line.slice(0, i).trimEnd()] = line.slice(i + 1).trimStart();
  }
  return out;
}

/** Separating whitespace as one tab, as procfs prints multi-value parameters (tcp_rmem). */
export const sanitizeSysctlValue = (v: unknown): string => String(v).replace(/\s+/g, '\t');

export async function sysctlGet(fun: string, name: string): Promise<string> {
  requireSysctl(fun);
  checkName(fun, 'parameter', name, SYSCTL_NAME);
  const r = await runArgv(fun, ['sysctl', '-n', name]);
  // Salt returns cmd.run's output whatever the exit code (an unknown key gives its error text).
  return r.retcode === 0 ? r.stdout : '';
}

export async function sysctlAssign(fun: string, name: string, value: unknown): Promise<Record<string, string>> {
  requireSysctl(fun);
  checkName(fun, 'parameter', name, SYSCTL_NAME);
  const v = String(value);
  // Salt swaps '.' and '/' (a dotted name's path under /proc/sys keeps literal dots as '/').
  const file = `/proc/sys/${name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'))}`;
  if (!existsSync(file)) throw new BrineError('EXEC_FAILED', `sysctl ${name} does not exist`);
  const r = await runArgv(fun, ['sysctl', '-w', `${name}=${v}`]);
  const re = new RegExp(`^${escapeRe(name)}\\s+=\\s+${escapeRe(v)}$`);
  if (!re.test(r.stdout) || r.stderr.includes('Invalid argument')) {
    throw new BrineError('EXEC_FAILED', `sysctl -w failed: ${r.retcode !== 0 && r.stderr ? tail(r.stderr) : r.stdout}`);
  }
  const i = r.stdout.indexOf(' = ');
  return { [r.stdout.slice(0, i)]: r.stdout.slice(i + 3) };
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Salt's persist: edit (or add) the line in config, then set the running value; 'Updated' or 'Already set'. */
export async function sysctlPersist(fun: string, name: string, value: unknown, config: string): Promise<'Updated' | 'Already set'> {
  checkName(fun, 'parameter', name, SYSCTL_NAME);
  if (!existsSync(config)) {
    mkdirSync(path.dirname(config), { recursive: true });
    writeFileSync(config, '#\n# Kernel sysctl configuration\n#\n');
  }
  const lines = readFileSync(config, 'utf8').split(/(?<=\n)/);
  const wanted = sanitizeSysctlValue(value);
  const out: string[] = [];
  let edited = false;
  for (const line of lines) {
    const i = line.indexOf('=');
    if (i < 0) {
      out.push(line);
      continue;
    }
    const key = line.slice(0, i).trim();
    if (key.startsWith('#') || key !== name) {
      out.push(line);
      continue;
    }
    if (sanitizeSysctlValue(line.slice(i + 1).trim()) === wanted) {
      // Right in the file: set the running value only when it differs.
      if (sanitizeSysctlValue(await sysctlGet(fun, name)) !== wanted) {
        await sysctlAssign(fun, name, value);
        return 'Updated';
      }
      return 'Already set';
    }
    out.push(`${name} = ${String(value)}\n`);
    edited = true;
  }
  if (!edited) out.push(`${name} = ${String(value)}\n`);
  writeFileSync(config, out.join(''));
  await sysctlAssign(fun, name, value);
  return 'Updated';
}

export const sysctlFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'sysctl.default_config',
    doc: 'The file sysctl.persist writes by default: /etc/sysctl.d/99-salt.conf under systemd 207 or later, else /etc/sysctl.conf.',
    params: [],
    run: () => defaultSysctlConfig(),
  }),
  defineFunction({
    name: 'sysctl.show',
    doc: 'All kernel parameters as {name: value} (sysctl -a), or with config_file the settings of that file ([] when it is missing).',
    params: [{ name: 'config_file', type: 'any', default: false, doc: 'read this sysctl.conf-style file instead of the running values' }],
    run: async (_ctx, a) => {
      if (a.named.config_file) return readSysctlConfig(String(a.named.config_file));
      requireSysctl('sysctl.show');
      const r = await runChecked('sysctl.show', ['sysctl', '-a']);
      const out: Record<string, string> = {};
      for (const line of r.stdout.split('\n')) {
        const i = line.indexOf(' = ');
        if (i > 0) out[line.slice(0, i)] = line.slice(i + 3);
      }
      return out;
    },
  }),
  defineFunction({
    name: 'sysctl.get',
    doc: "One kernel parameter's running value (sysctl -n).",
    params: [{ name: 'name', type: 'string', required: true, doc: 'e.g. net.ipv4.ip_forward' }],
    run: (_ctx, a) => sysctlGet('sysctl.get', a.named.name),
  }),
  defineFunction({
    name: 'sysctl.assign',
    doc: 'Set a kernel parameter now (sysctl -w); returns {name: new value}.',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'e.g. net.ipv4.ip_forward' },
      { name: 'value', type: 'any', required: true, doc: 'the value' },
    ],
    run: (_ctx, a) => sysctlAssign('sysctl.assign', a.named.name, a.named.value),
  }),
  defineFunction({
    name: 'sysctl.persist',
    doc: "Set a kernel parameter in a config file and now; returns 'Updated' or 'Already set'.",
    params: [
      { name: 'name', type: 'string', required: true, doc: 'e.g. net.ipv4.ip_forward' },
      { name: 'value', type: 'any', required: true, doc: 'the value' },
      { name: 'config', type: 'string', doc: 'the file (default: sysctl.default_config)' },
    ],
    run: async (_ctx, a) => sysctlPersist('sysctl.persist', a.named.name, a.named.value, a.named.config ?? (await defaultSysctlConfig())),
  }),
];
