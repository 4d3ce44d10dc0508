// Salt's CLI spellings, in one place: the alias table of salt/utils/parsers.py's output options
// (`--output` for `--out`, `--state_output` for `--state-output`...) and `-c DIR` in any position
// (`brine -c DIR jobs list`, `brine jobs -c DIR list`). The command line is rewritten to brine's
// own spelling before commander parses it, and only for a command that has the option, so a
// command without it still answers "unknown option" as before.

import type { Command } from 'commander';

/** Salt's second spelling of an option -> brine's spelling (OutputOptionsMixIn in Salt 3007). */
export const SALT_OPTION_ALIASES: ReadonlyMap<string, string> = new Map([
  ['--output', '--out'],
  ['--output-indent', '--out-indent'],
  ['--output-file', '--out-file'],
  ['--output-file-append', '--out-file-append'],
  ['--no-colour', '--no-color'],
  ['--force-colour', '--force-color'],
  ['--state_output', '--state-output'],
  ['--state_verbose', '--state-verbose'],
]);

const CONFIG_DIR_FLAGS: ReadonlySet<string> = new Set(['-c', '--config-dir']);

/** How many tokens a `-c DIR` / `--config-dir=DIR` / `-cDIR` at `args[i]` takes (0: not one). */
function configDirAt(args: readonly string[], i: number): number {
  const tok = args[i]!;
  if (CONFIG_DIR_FLAGS.has(tok)) return i + 1 < args.length ? 2 : 0;
  if (tok.startsWith('--config-dir=') || (tok.startsWith('-c') && tok.length > 2 && !tok.startsWith('--'))) return 1;
  return 0;
}

/** The subcommand `argv[2...]` names, skipping `-c DIR` before it (which command module to load). */
export function commandName(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; ) {
    const n = configDirAt(args, i);
    if (n > 0) {
      i += n;
      continue;
    }
    return args[i];
  }
  return undefined;
}

function hasLongOption(cmd: Command, long: string): boolean {
  return cmd.options.some((o) => o.long === long);
}

function subcommand(cmd: Command, name: string): Command | undefined {
  return cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

/** `--output=json` -> `--out=json` when the command has `--out`; anything else unchanged. */
function respell(cmd: Command, tok: string): string {
  const eq = tok.indexOf('=');
  const flag = eq < 0 ? tok : tok.slice(0, eq);
  const ours = SALT_OPTION_ALIASES.get(flag);
  if (ours === undefined || !hasLongOption(cmd, ours) || hasLongOption(cmd, flag)) return tok;
  return eq < 0 ? ours : `${ours}${tok.slice(eq)}`;
}

/**
 * `args` (argv without node and the script) in brine's spelling for `program`: every `-c DIR`
 * before the last subcommand moves to just after it, and Salt's aliases after it become brine's.
 * Nothing after `--` is touched (a job's own arguments).
 */
export function normalizeArgs(args: readonly string[], program: Command): string[] {
  const stop = args.indexOf('--');
  const head = stop < 0 ? [...args] : args.slice(0, stop);
  const tail = stop < 0 ? [] : args.slice(stop);
  const path: string[] = [];
  const moved: string[] = [];
  let cmd = program;
  let i = 0;
  while (i < head.length) {
    const n = cmd.commands.length > 0 ? configDirAt(head, i) : 0;
    if (n > 0) {
      moved.push(...head.slice(i, i + n));
      i += n;
      continue;
    }
    const sub = subcommand(cmd, head[i]!);
    if (sub === undefined) break;
    path.push(head[i]!);
    cmd = sub;
    i += 1;
  }
  // a command without -c keeps the flag where it was, so commander names it as unknown there
  const rest = head.slice(i).map((tok) => respell(cmd, tok));
  const config = moved.length > 0 && hasLongOption(cmd, '--config-dir') ? moved : [];
  const before = config.length > 0 ? [] : moved;
  return [...before, ...path, ...config, ...rest, ...tail];
}
