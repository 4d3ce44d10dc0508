// The `alternatives` module (Salt's alternatives.py on Debian): link groups managed with
// update-alternatives: display, the current choice, install, remove, set and auto.

import { BrineError } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import { checkName, runArgv } from './host-tools.js';
import { which } from './host-tools.js';
import type { ModuleFunction } from './types.js';

const GROUP = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;
const PATH = /^\/[^\0\n]*$/;

async function ua(fun: string, args: string[]): Promise<{ retcode: number; stdout: string; stderr: string }> {
  if (!which('update-alternatives')) throw new BrineError('EXEC_FAILED', `${fun}: update-alternatives is not installed on this host (Debian: it comes with dpkg; RHEL: chkconfig)`);
  return runArgv(fun, ['update-alternatives', ...args]);
}

/** The alternative a group points at now ('' when the group does not exist). */
export async function showCurrent(fun: string, name: string): Promise<string> {
  checkName(fun, 'link group', name, GROUP);
  const r = await ua(fun, ['--query', name]);
  return r.retcode === 0 ? (/^Value: (.*)$/m.exec(r.stdout)?.[1]?.trim() ?? '') : '';
}

const NAME = { name: 'name', type: 'string', required: true, doc: "the link group, e.g. 'editor'" } as const;
const PATHP = { name: 'path', type: 'string', required: true, doc: 'an alternative, e.g. /usr/bin/vim.basic' } as const;
const out = (r: { retcode: number; stdout: string; stderr: string }): string => (r.retcode === 0 ? r.stdout : r.stderr);

export const alternativesFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'alternatives.display',
    doc: "update-alternatives --display's text for a group (its error text when that fails).",
    params: [NAME],
    run: async (_ctx, a) => out(await ua('alternatives.display', ['--display', checkName('alternatives.display', 'link group', a.named.name, GROUP)])),
  }),
  defineFunction({
    name: 'alternatives.show_current',
    doc: "The alternative a group points at now ('' when there is none).",
    params: [NAME],
    run: (_ctx, a) => showCurrent('alternatives.show_current', a.named.name),
  }),
  defineFunction({
    name: 'alternatives.check_exists',
    doc: 'Whether path is registered as an alternative of the group.',
    params: [NAME, PATHP],
    run: async (_ctx, a) => {
      const r = await ua('alternatives.check_exists', ['--display', checkName('alternatives.check_exists', 'link group', a.named.name, GROUP)]);
      if (r.retcode > 0 && r.stderr !== '') return false;
      return r.stdout.split('\n').some((l) => l.startsWith(a.named.path));
    },
  }),
  defineFunction({
    name: 'alternatives.check_installed',
    doc: "Whether the group's current alternative is path.",
    params: [NAME, PATHP],
    run: async (_ctx, a) => (await showCurrent('alternatives.check_installed', a.named.name)) === a.named.path,
  }),
  defineFunction({
    name: 'alternatives.install',
    doc: 'Register path as an alternative of the group behind link, with a priority (--install).',
    params: [
      NAME,
      { name: 'link', type: 'string', required: true, doc: 'the generic link, e.g. /usr/bin/editor' },
      PATHP,
      { name: 'priority', type: 'int', required: true, doc: 'higher wins in auto mode' },
    ],
    run: async (_ctx, a) => {
      const fun = 'alternatives.install';
      const n = a.named;
      return out(await ua(fun, ['--install', checkName(fun, 'link', n.link, PATH), checkName(fun, 'link group', n.name, GROUP), checkName(fun, 'path', n.path, PATH), String(n.priority)]));
    },
  }),
  defineFunction({
    name: 'alternatives.remove',
    doc: 'Unregister path from the group (--remove).',
    params: [NAME, PATHP],
    run: async (_ctx, a) =>
      out(await ua('alternatives.remove', ['--remove', checkName('alternatives.remove', 'link group', a.named.name, GROUP), checkName('alternatives.remove', 'path', a.named.path, PATH)])),
  }),
  defineFunction({
    name: 'alternatives.auto',
    doc: 'Put the group back in automatic mode (highest priority wins).',
    params: [NAME],
    run: async (_ctx, a) => out(await ua('alternatives.auto', ['--auto', checkName('alternatives.auto', 'link group', a.named.name, GROUP)])),
  }),
  defineFunction({
    name: 'alternatives.set',
    doc: 'Point the group at path (manual mode).',
    params: [NAME, PATHP],
    run: async (_ctx, a) => out(await ua('alternatives.set', ['--set', checkName('alternatives.set', 'link group', a.named.name, GROUP), checkName('alternatives.set', 'path', a.named.path, PATH)])),
  }),
];
