// The mail aliases file as Salt's salt/modules/aliases.py reads and writes it: each line matched by
// Salt's own pattern into (alias, target, trailing comment), other lines kept as text; a rewrite
// is atomic (keeping owner and mode, 0644 for a new file) and runs `newaliases` when it is on PATH.
// The file is `aliases.file` from the minion config (Salt's config.option), /etc/aliases by default.

import { chmodSync, existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { runArgv, which } from '../../modules/host-tools.js';
import type { StateContext } from '../types.js';
import { writeAtomic } from './file-write.js';

/** (alias, target, comment); alias undefined for a line Salt's pattern does not match. */
type AliasLine = [string | undefined, string, string];

// Salt's __ALIAS_RE, applied to a line without its newline (Python's `$` also matches before one).
const ALIAS_RE = /^([^:#]*)\s*:?\s*([^#]*?)(\s+#.*|$)/;

export function aliasesFilename(ctx: StateContext): string {
  const configured = ctx.exec.config['aliases.file'];
  const file = typeof configured === 'string' && configured !== '' ? configured : '/etc/aliases';
  // Salt resolves symlinks (os.path.realpath) so the rename replaces the real file
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function parse(file: string): AliasLine[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  const lines = text.split(/(?<=\n)/).filter((l) => l !== '');
  return lines.map((raw) => {
    const m = ALIAS_RE.exec(raw.replace(/\n$/, ''));
    return m ? [m[1], m[2]!, m[3]!] : [undefined, '', raw.trim()];
  });
}

/** Salt's list_aliases: alias -> target. */
export function listAliases(file: string): Map<string, string> {
  return new Map(parse(file).flatMap(([a, t]) => (a ? [[a, t] as const] : [])));
}

/** Salt's has_target: a list target is compared joined with ", ". */
export function hasTarget(file: string, alias: string, target: string): boolean {
  return listAliases(file).get(alias) === target;
}

/** Writes the lines back as Salt's __write_aliases_file does; a line without alias or target keeps only its comment. */
async function write(file: string, lines: AliasLine[]): Promise<void> {
  const text = lines.map(([alias, target, comment]) => (alias && target ? `${alias}: ${target}${comment}\n` : `${comment}\n`)).join('');
  const fresh = !existsSync(file);
  await writeAtomic(file, text);
  if (fresh) chmodSync(file, 0o644);
  const newaliases = which('newaliases');
  if (newaliases) {
    const r = await runArgv('alias', [newaliases]);
    if (r.retcode !== 0) throw new Error(`newaliases failed (exit ${r.retcode}): ${r.stderr || r.stdout}`);
  }
}

/** Salt's set_target: the first line of the alias is replaced (keeping its comment), later ones dropped, or a line appended. */
export async function setTarget(file: string, alias: string, target: string): Promise<void> {
  if (listAliases(file).get(alias) === target) return;
  const out: AliasLine[] = [];
  let replaced = false;
  for (const line of parse(file)) {
    if (line[0] !== alias) out.push(line);
    else if (!replaced) {
      out.push([alias, target, line[2]]);
      replaced = true;
    }
  }
  if (!replaced) out.push([alias, target, '']);
  await write(file, out);
}

/** Salt's rm_alias. */
export async function rmAlias(file: string, alias: string): Promise<void> {
  if (!listAliases(file).get(alias)) return;
  await write(
    file,
    parse(file).filter(([a]) => a !== alias),
  );
}
