// The `timezone` module for Debian-style hosts (Salt's timezone.py): the zone is /etc/localtime
// (a link into /usr/share/zoneinfo) plus /etc/timezone; the hardware clock's UTC or local time is
// the third line of /etc/adjtime. Under systemd, timedatectl is told as well.

import { existsSync, lstatSync, readFileSync, readlinkSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BrineError, errorMessage } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import { runArgv, which } from './host-tools.js';
import type { ModuleFunction } from './types.js';

const LOCALTIME = '/etc/localtime';
const ZONEINFO = '/usr/share/zoneinfo';
const ADJTIME = '/etc/adjtime';
const ZONE = /^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/;
const systemd = (): boolean => existsSync('/run/systemd/system') && which('timedatectl') !== undefined;

function zoneFile(zone: string): string {
  if (!ZONE.test(zone)) throw new BrineError('BAD_ARGUMENTS', `'${zone}' is not a time zone name (like Europe/Paris)`);
  return path.join(ZONEINFO, zone);
}

export function getZone(): string {
  if (existsSync('/etc/timezone')) return readFileSync('/etc/timezone', 'utf8').trim();
  try {
    return path.relative(ZONEINFO, path.resolve('/etc', readlinkSync(LOCALTIME)));
  } catch {
    return '';
  }
}

/** Salt's zone_compare: /etc/localtime's bytes against the zone's file. */
export function zoneCompare(zone: string): boolean {
  const file = zoneFile(zone);
  let want: Buffer;
  try {
    want = readFileSync(file);
  } catch {
    throw new BrineError('EXEC_FAILED', `Can't find a local timezone "${zone}"`);
  }
  try {
    return readFileSync(LOCALTIME).equals(want);
  } catch (err) {
    throw new BrineError('EXEC_FAILED', `Failed to read ${LOCALTIME} to determine current timezone: ${errorMessage(err)}`);
  }
}

export function getHwclock(): 'UTC' | 'localtime' {
  if (!existsSync(ADJTIME)) return 'UTC';
  return readFileSync(ADJTIME, 'utf8').split('\n')[2]?.trim() === 'LOCAL' ? 'localtime' : 'UTC';
}

export const timezoneFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'timezone.get_zone',
    doc: "The system's time zone name (from /etc/timezone, else the /etc/localtime link).",
    params: [],
    run: () => getZone(),
  }),
  defineFunction({
    name: 'timezone.zone_compare',
    doc: "Whether /etc/localtime is the zone's file (byte for byte).",
    params: [{ name: 'timezone', type: 'string', required: true, doc: 'e.g. Europe/Paris' }],
    run: (_ctx, a) => zoneCompare(a.named.timezone),
  }),
  defineFunction({
    name: 'timezone.set_zone',
    doc: 'Set the time zone: /etc/localtime links to the zone file, /etc/timezone names it (and timedatectl under systemd).',
    params: [{ name: 'timezone', type: 'string', required: true, doc: 'e.g. Europe/Paris' }],
    run: async (_ctx, a) => {
      const zone = a.named.timezone;
      const file = zoneFile(zone);
      if (!existsSync(file)) return `Zone does not exist: ${file}`;
      if (systemd()) await runArgv('timezone.set_zone', ['timedatectl', 'set-timezone', zone]);
      if (lstatSync(LOCALTIME, { throwIfNoEntry: false })) unlinkSync(LOCALTIME);
      symlinkSync(file, LOCALTIME);
      writeFileSync('/etc/timezone', `${zone}\n`);
      return true;
    },
  }),
  defineFunction({
    name: 'timezone.get_hwclock',
    doc: "Whether the hardware clock keeps 'UTC' or 'localtime' (/etc/adjtime).",
    params: [],
    run: () => getHwclock(),
  }),
  defineFunction({
    name: 'timezone.set_hwclock',
    doc: "Make the hardware clock keep 'UTC' or 'localtime' (/etc/adjtime; timedatectl under systemd).",
    params: [{ name: 'clock', type: 'string', required: true, doc: "'UTC' or 'localtime'" }],
    run: async (_ctx, a) => {
      const clock = a.named.clock.toLowerCase();
      if (clock !== 'utc' && clock !== 'localtime') throw new BrineError('BAD_ARGUMENTS', `timezone.set_hwclock: clock must be 'UTC' or 'localtime', got '${a.named.clock}'`);
      if (systemd()) await runArgv('timezone.set_hwclock', ['timedatectl', 'set-local-rtc', clock === 'utc' ? 'false' : 'true']);
      const lines = existsSync(ADJTIME) ? readFileSync(ADJTIME, 'utf8').split('\n') : ['0.0 0 0.0', '0'];
      lines[2] = clock === 'utc' ? 'UTC' : 'LOCAL';
      writeFileSync(ADJTIME, `${lines.slice(0, 3).join('\n')}\n`);
      return true;
    },
  }),
];
