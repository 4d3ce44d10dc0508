// The `debconf` module (Salt's debconfmod): read the answers to packages' debconf questions with
// debconf-get-selections, set them with debconf-set-selections. Both honour DEBCONF_SYSTEMRC
// and the other debconf environment variables, as debconf itself does.

import { BrineError } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import { checkName, runChecked, which } from './host-tools.js';
import type { ModuleFunction } from './types.js';

export type Selection = [question: string, type: string, value: string];

const PKG = /^[a-z0-9][a-z0-9+.-]*$/;
const QUESTION = /^[A-Za-z0-9][A-Za-z0-9+._/:-]*$/;
const TYPE = /^[a-z]+$/;

/** debconf-get-selections' output as Salt's {package: [[question, type, value], ...]}. */
export function parseSelections(out: string, fetchEmpty = true): Record<string, Selection[]> {
  const sel: Record<string, Selection[]> = {};
  for (const m of out.matchAll(/^([^#\s]\S*)[\t ]+(\S+)[\t ]+(\S+)[\t ]+([^\n]*)$/gm)) {
    const [, pkg, question, type, value] = m as unknown as [string, string, string, string, string];
    if (!fetchEmpty && !value) continue;
    sel[pkg] ??= [];
    sel[pkg].push([question, type, value]);
  }
  return sel;
}

async function getSelections(fun: string, fetchEmpty: boolean): Promise<Record<string, Selection[]>> {
  if (!which('debconf-get-selections')) {
    throw new BrineError('EXEC_FAILED', `${fun}: debconf-get-selections is not installed on this host; install it with apt-get install debconf-utils`);
  }
  return parseSelections((await runChecked(fun, ['debconf-get-selections'])).stdout, fetchEmpty);
}

export const debconfFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'debconf.get_selections',
    doc: 'The answers to every debconf question, as {package: [[question, type, value], ...]}.',
    params: [{ name: 'fetchempty', type: 'bool', default: true, doc: 'include questions without an answer' }],
    run: (_ctx, a) => getSelections('debconf.get_selections', a.named.fetchempty),
  }),
  defineFunction({
    name: 'debconf.show',
    doc: "A package's debconf answers as [[question, type, value], ...]; None when debconf does not know the package.",
    params: [{ name: 'name', type: 'string', required: true, doc: 'the package' }],
    run: async (_ctx, a) => (await getSelections('debconf.show', true))[a.named.name] ?? null,
  }),
  defineFunction({
    name: 'debconf.set',
    doc: "Answer a package's debconf question (debconf-set-selections); returns True.",
    params: [
      { name: 'package', type: 'string', required: true, doc: 'the package' },
      { name: 'question', type: 'string', required: true, doc: "e.g. 'tzdata/Areas'" },
      { name: 'type', type: 'string', required: true, doc: 'string, boolean, select, multiselect, password, note, text' },
      { name: 'value', type: 'any', required: true, doc: 'the answer' },
    ],
    varargs: true,
    run: async (_ctx, a) => {
      const fun = 'debconf.set';
      checkName(fun, 'package', a.named.package, PKG);
      checkName(fun, 'question', a.named.question, QUESTION);
      checkName(fun, 'type', a.named.type, TYPE);
      // Salt joins surplus positional arguments into the value (a value with spaces from the CLI).
      const value = [a.named.value, ...a.rest].map(String).join(' ');
      if (/[\n\r]/.test(value)) throw new BrineError('BAD_ARGUMENTS', `${fun}: the value of ${a.named.question} must be on one line`);
      if (!which('debconf-set-selections')) throw new BrineError('EXEC_FAILED', `${fun}: debconf-set-selections is not installed on this host (it comes with the debconf package)`);
      await runChecked(fun, ['debconf-set-selections'], { stdin: `${a.named.package} ${a.named.question} ${a.named.type} ${value}\n` });
      return true;
    },
  }),
];
