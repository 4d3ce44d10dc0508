// iptables.append/insert/delete/chain_present/chain_absent/set_policy with Salt's arguments,
// comments and changes ({locale: name}) from salt/states/iptables.py. They act for real through
// the iptables binary (nf_tables or legacy, whichever `iptables` is on PATH); `save` writes the
// family's rules where Debian's iptables-persistent loads them.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ParamSpec } from '../../../modules/index.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../../types.js';
import { stateResult } from '../state-result.js';
import { cannotAct, isUnreachable } from './backend.js';
import { chainCommand, chainPolicy, changeRule, hasChain, hasRule, type Iptables, locateIptables, saveText } from './iptables-host.js';
import { buildRule, fullCommand } from './iptables-rule.js';

const common = [
  { name: 'name', type: 'string', required: true, doc: 'a name for the rule (not the rule itself)' },
  { name: 'table', type: 'string', default: 'filter' },
  { name: 'family', type: 'string', default: 'ipv4', doc: 'ipv4 or ipv6' },
] as const satisfies readonly ParamSpec[];
const ruleParams = [
  ...common,
  { name: 'chain', type: 'string', doc: 'required, here or in each of `rules`' },
  { name: 'save', type: 'any', doc: 'True: save the rules to /etc/iptables/rules.v4 (rules.v6), or a file name' },
] as const satisfies readonly ParamSpec[];

/** Debian's iptables-persistent files (Salt's _conf for Debian). */
const savedRulesFile = (family: string, save: unknown): string => (typeof save === 'string' ? save : family === 'ipv6' ? '/etc/iptables/rules.v6' : '/etc/iptables/rules.v4');

/** iptables.save: the dump written to the file; Salt's file.write answer. */
async function saveRules(ipt: Iptables, family: string, save: unknown): Promise<string> {
  const file = savedRulesFile(family, save);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, await saveText(ipt));
  return `Wrote 1 lines to "${file}"`;
}

const ruleLines = (dump: string): string[] => dump.split('\n').filter((l) => l.startsWith('-A ') || /^\*/.test(l));

/** The saved file holds other rules than the running ones (Salt compares get_saved_rules with get_rules). */
async function savedDiffers(ipt: Iptables, family: string, save: unknown): Promise<boolean> {
  const saved = await readFile(savedRulesFile(family, save), 'utf8').catch(() => '');
  return ruleLines(saved).join('\n') !== ruleLines(await saveText(ipt)).join('\n');
}

type RuleOp = 'A' | 'I' | 'D';
interface RuleArgs {
  name: string;
  table: string;
  family: string;
  chain?: string | undefined;
  save?: unknown;
  position?: unknown;
}

// Salt words each function's comments differently; these are its texts, verbatim.
const WORDS: Record<RuleOp, { already: (n: string, c: string, f: string) => string; needs: (n: string, c: string, f: string) => string }> = {
  A: { already: (n, c, f) => `iptables rule for ${n} already set (${c}) for ${f}`, needs: (n, c, f) => `iptables rule for ${n} needs to be set (${c}) for ${f}` },
  I: { already: (n, c, f) => `iptables rule for ${n} already set for ${f} (${c})`, needs: (n, c, f) => `iptables rule for ${n} needs to be set for ${f} (${c})` },
  D: { already: (n, c, f) => `iptables rule for ${n} already absent for ${f} (${c})`, needs: (n, c, f) => `iptables rule for ${n} needs to be deleted for ${f} (${c})` },
};

async function ruleState(ctx: StateContext, op: RuleOp, n: RuleArgs, extra: Record<string, unknown>): Promise<StateResult> {
  const { name, table, family } = n;
  if (!n.chain) return stateResult(name, false, `iptables.${op === 'A' ? 'append' : op === 'I' ? 'insert' : 'delete'}: chain is required`);
  const chain = n.chain;
  const located = await locateIptables(ctx, family);
  const rule = buildRule(extra);
  const position = n.position === undefined || n.position === null ? '' : String(n.position);
  const program = isUnreachable(located) ? (family === 'ipv6' ? 'ip6tables' : 'iptables') : located.program;
  const command = fullCommand(program, isUnreachable(located) || located.wait, table, op, chain, op === 'A' ? '' : position, rule);
  if (isUnreachable(located)) return ctx.test ? stateResult(name, null, WORDS[op].needs(name, command, family)) : cannotAct(ctx, name, located);
  const ipt = located;
  const present = await hasRule(ipt, table, chain, rule);
  if (op !== 'D' && present) {
    let comment = WORDS[op].already(name, command, family);
    if (n.save && !ctx.test && (await savedDiffers(ipt, family, n.save))) comment += `\nSaved iptables rule ${name} for ${family}\n${command}\n${await saveRules(ipt, family, n.save)}`;
    return stateResult(name, true, comment);
  }
  if (op === 'D' && !present && position === '') return stateResult(name, true, WORDS.D.already(name, command, family));
  if (ctx.test) return stateResult(name, null, WORDS[op].needs(name, command, family));
  if (op === 'I' && position === '') return stateResult(name, false, `Failed to set iptables rule for ${name}.\nAttempted rule was ${command}`);
  const done = await changeRule(ipt, op, table, chain, rule, op === 'A' || (op === 'D' && position === '') ? undefined : position);
  if (!done.ok) {
    // Salt's comment, then iptables' own words (not root, no such chain, ...), which Salt drops.
    const why = done.output ? `\n${done.output}` : '';
    if (op === 'A') return stateResult(name, false, `Failed to set iptables rule for ${name}.\nAttempted rule was ${command} for ${family}${why}`);
    return stateResult(name, false, `Failed to ${op === 'I' ? 'set' : 'delete'} iptables rule for ${name}.\nAttempted rule was ${command}${why}`);
  }
  const saved = n.save ? await saveRules(ipt, family, n.save) : undefined;
  if (op === 'D') {
    const comment = saved !== undefined ? `Deleted and saved iptables rule ${name} for ${family}\n${command}\n${saved}` : `Delete iptables rule for ${name} ${command}`;
    return stateResult(name, true, comment, { locale: name });
  }
  const comment = saved !== undefined ? `Set and saved iptables rule ${name} for ${family}\n${command}\n${saved}` : `Set iptables rule for ${name} to: ${command} for ${family}`;
  return stateResult(name, true, comment, { locale: name });
}

/**
 * Salt's `rules:` form: each item is a rule of its own (over the state's other arguments); the
 * locales changed are listed, the comments joined by lines, and the result is the last rule's.
 * One save at the end, as Salt does.
 */
async function ruleStates(ctx: StateContext, op: RuleOp, n: RuleArgs, extra: Record<string, unknown>): Promise<StateResult> {
  const { rules, ...shared } = extra;
  if (rules === undefined) return ruleState(ctx, op, n, extra);
  if (!Array.isArray(rules)) return stateResult(n.name, false, "'rules' must be a list of rules (mappings of iptables options)");
  const locales: unknown[] = [];
  const comments: string[] = [];
  let result: boolean | null = null;
  for (const item of rules) {
    const { name, table, family, chain, position, save: _save, ...options } = { ...(item as Record<string, unknown>) };
    const args: RuleArgs = {
      name: String(name ?? n.name),
      table: String(table ?? n.table),
      family: String(family ?? n.family),
      chain: chain !== undefined ? String(chain) : n.chain,
      ...(position !== undefined ? { position } : n.position !== undefined ? { position: n.position } : {}),
    };
    const r = await ruleState(ctx, op, args, { ...shared, ...options });
    if ('locale' in r.changes) locales.push(r.changes.locale);
    comments.push(r.comment);
    result = r.result;
  }
  if (n.save && !ctx.test && locales.length > 0) {
    const ipt = await locateIptables(ctx, n.family);
    if (!isUnreachable(ipt)) await saveRules(ipt, n.family, n.save);
  }
  return stateResult(n.name, result, comments.join('\n'), locales.length > 0 ? { locale: locales } : {});
}

const append = defineState({
  name: 'iptables.append',
  doc: 'Make sure a rule is in a chain, appended at its end when missing (acts for real).',
  params: ruleParams,
  kwargs: true,
  example: 'allow-ssh:\n  iptables.append:\n    - chain: INPUT\n    - proto: tcp\n    - dport: 22\n    - jump: ACCEPT\n    - save: True',
  run: (ctx, a) => ruleStates(ctx, 'A', a.named, a.extra),
});

const insert = defineState({
  name: 'iptables.insert',
  doc: 'Make sure a rule is in a chain, inserted at `position` when missing (acts for real).',
  params: [...ruleParams, { name: 'position', type: 'any', doc: 'where to insert it, from 1' }],
  kwargs: true,
  example: 'allow-lo:\n  iptables.insert:\n    - position: 1\n    - chain: INPUT\n    - if: lo\n    - jump: ACCEPT',
  run: (ctx, a) => ruleStates(ctx, 'I', a.named, a.extra),
});

const remove = defineState({
  name: 'iptables.delete',
  doc: 'Make sure a rule is not in a chain (by rule, or by `position`) (acts for real).',
  params: [...ruleParams, { name: 'position', type: 'any', doc: 'delete the rule at this position instead' }],
  kwargs: true,
  example: 'no-telnet:\n  iptables.delete:\n    - chain: INPUT\n    - proto: tcp\n    - dport: 23\n    - jump: ACCEPT',
  run: (ctx, a) => ruleStates(ctx, 'D', a.named, a.extra),
});

const chainPresent = defineState({
  name: 'iptables.chain_present',
  doc: 'Make sure a user-defined chain exists (acts for real).',
  params: common,
  example: 'LOGDROP:\n  iptables.chain_present:\n    - table: filter',
  run: async (ctx, a) => {
    const { name, table, family } = a.named;
    const ipt = await locateIptables(ctx, family);
    if (isUnreachable(ipt)) return ctx.test ? stateResult(name, null, `iptables ${name} chain in ${table} table needs to be set for ${family}`) : cannotAct(ctx, name, ipt);
    if (await hasChain(ipt, table, name)) return stateResult(name, true, `iptables ${name} chain is already exist in ${table} table for ${family}`);
    if (ctx.test) return stateResult(name, null, `iptables ${name} chain in ${table} table needs to be set for ${family}`);
    const r = await chainCommand(ipt, 'N', table, name);
    if (!r.ok) return stateResult(name, false, `Failed to create ${name} chain in ${table} table: ${r.output} for ${family}`);
    return stateResult(name, true, `iptables ${name} chain in ${table} table create success for ${family}`, { locale: name });
  },
});

const chainAbsent = defineState({
  name: 'iptables.chain_absent',
  doc: 'Make sure a user-defined chain does not exist; its rules are flushed first (acts for real).',
  params: common,
  example: 'OLDCHAIN:\n  iptables.chain_absent:\n    - table: filter',
  run: async (ctx, a) => {
    const { name, table, family } = a.named;
    const ipt = await locateIptables(ctx, family);
    if (isUnreachable(ipt)) return ctx.test ? stateResult(name, null, `iptables ${name} chain in ${table} table needs to be removed ${family}`) : cannotAct(ctx, name, ipt);
    if (!(await hasChain(ipt, table, name))) return stateResult(name, true, `iptables ${name} chain is already absent in ${table} table for ${family}`);
    if (ctx.test) return stateResult(name, null, `iptables ${name} chain in ${table} table needs to be removed ${family}`);
    const flushed = await chainCommand(ipt, 'F', table, name);
    if (!flushed.ok) return stateResult(name, false, `Failed to flush ${name} chain in ${table} table: ${flushed.output} for ${family}`);
    const r = await chainCommand(ipt, 'X', table, name);
    if (!r.ok) return stateResult(name, false, `Failed to delete ${name} chain in ${table} table: ${r.output} for ${family}`);
    return stateResult(name, true, `iptables ${name} chain in ${table} table delete success for ${family}`, { locale: name });
  },
});

const setPolicy = defineState({
  name: 'iptables.set_policy',
  // Salt's iptables.set_policy takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: "Make sure a built-in chain's default policy is the given one (acts for real).",
  params: [
    ...common,
    { name: 'chain', type: 'string', required: true },
    { name: 'policy', type: 'string', required: true, doc: 'ACCEPT, DROP, ...' },
    { name: 'save', type: 'any', doc: 'True: save the rules to /etc/iptables/rules.v4 (rules.v6), or a file name' },
  ],
  example: 'default-drop:\n  iptables.set_policy:\n    - chain: INPUT\n    - policy: DROP',
  run: async (ctx, a) => {
    const { name, table, family, chain, policy } = a.named;
    const ipt = await locateIptables(ctx, family);
    const needs = `iptables default policy for chain ${chain} on table ${table} for ${family} needs to be set to ${policy}`;
    if (isUnreachable(ipt)) return ctx.test ? stateResult(name, null, needs) : cannotAct(ctx, name, ipt);
    if ((await chainPolicy(ipt, table, chain)) === policy) {
      return stateResult(name, true, `iptables default policy for chain ${chain} on table ${table} for ${family} already set to ${policy}`);
    }
    if (ctx.test) return stateResult(name, null, needs);
    const r = await chainCommand(ipt, 'P', table, chain, policy);
    if (!r.ok) return stateResult(name, false, 'Failed to set iptables default policy');
    if (a.named.save) {
      await saveRules(ipt, family, a.named.save);
      return stateResult(name, true, `Set and saved default policy for ${chain} to ${policy} family ${family}`, { locale: name });
    }
    return stateResult(name, true, `Set default policy for ${chain} to ${policy} family ${family}`, { locale: name });
  },
});

export const iptablesStates: readonly StateFunction[] = [append, insert, remove, chainPresent, chainAbsent, setPolicy];
