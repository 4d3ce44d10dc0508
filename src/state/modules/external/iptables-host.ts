// The iptables programs as Salt's iptables module drives them (salt/modules/iptables.py): the
// family's binary found on PATH, whether it takes --wait, and the few operations the states use.
// Each runs an argv (never a shell); a rule string is split into words as the shell would.

import { runArgv } from '../../../modules/host-tools.js';
import { splitShellWords } from '../../../modules/index.js';
import type { StateContext } from '../../types.js';
import { findProgram, isUnreachable, type Unreachable } from './backend.js';

export interface Iptables {
  /** The binary's absolute path (Salt's _iptables_cmd), as the state comments quote it. */
  program: string;
  /** It lists --wait in its help (Salt's _has_option('--wait')). */
  wait: boolean;
  ctx: StateContext;
}

/** iptables for ipv4, ip6tables for ipv6; or why it cannot be used here. */
export async function locateIptables(ctx: StateContext, family: string): Promise<Iptables | Unreachable> {
  const found = findProgram(family === 'ipv6' ? 'ip6tables' : 'iptables', 'iptables');
  if (isUnreachable(found)) return found;
  const help = await runArgv('iptables', [found.path, '--help'], { signal: ctx.exec.signal });
  return { program: found.path, wait: help.stdout.includes('--wait'), ctx };
}

async function run(ipt: Iptables, args: readonly string[]): Promise<{ ok: boolean; output: string }> {
  const r = await runArgv('iptables', [ipt.program, ...args], { signal: ipt.ctx.exec.signal, timeoutMs: 60_000 });
  return { ok: r.retcode === 0, output: (r.stderr || r.stdout).trim() };
}

const waitFlag = (ipt: Iptables): string[] => (ipt.wait ? ['--wait'] : []);

/** iptables.check: the rule is in the chain (`-C`). */
export async function hasRule(ipt: Iptables, table: string, chain: string, rule: string): Promise<boolean> {
  return (await run(ipt, ['-t', table, '-C', chain, ...splitShellWords(rule)])).ok;
}

/** -A, -I <position> or -D (by rule, or by position when given). */
export function changeRule(ipt: Iptables, op: 'A' | 'I' | 'D', table: string, chain: string, rule: string, position?: string) {
  const target = position !== undefined ? (op === 'D' ? [position] : [position, ...splitShellWords(rule)]) : splitShellWords(rule);
  return run(ipt, [...waitFlag(ipt), '-t', table, `-${op}`, chain, ...target]);
}

/** iptables-save of one table (or all), the text Salt parses for chains and policies. */
export async function saveText(ipt: Iptables, table?: string): Promise<string> {
  const r = await runArgv('iptables-save', [`${ipt.program}-save`, ...(table ? ['-t', table] : [])], { signal: ipt.ctx.exec.signal, timeoutMs: 60_000 });
  if (r.retcode !== 0) throw new Error(`${ipt.program}-save failed: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

/** iptables.check_chain: the table's dump declares `:<chain> `. */
export async function hasChain(ipt: Iptables, table: string, chain: string): Promise<boolean> {
  return (await saveText(ipt, table)).includes(`:${chain} `);
}

/** iptables.get_policy: the chain's policy from the dump (`:INPUT ACCEPT [0:0]`), or undefined. */
export async function chainPolicy(ipt: Iptables, table: string, chain: string): Promise<string | undefined> {
  for (const line of (await saveText(ipt, table)).split('\n')) {
    const m = /^:(\S+) (\S+)/.exec(line);
    if (m && m[1] === chain) return m[2];
  }
  return undefined;
}

export function chainCommand(ipt: Iptables, op: 'N' | 'F' | 'X' | 'P', table: string, chain: string, policy?: string) {
  return run(ipt, [...waitFlag(ipt), '-t', table, `-${op}`, chain, ...(policy ? [policy] : [])]);
}
