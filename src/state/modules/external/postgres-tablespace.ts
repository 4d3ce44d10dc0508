// postgres_tablespace.present/absent with Salt's arguments, comments and changes
// (salt/states/postgres_tablespace.py over salt/modules/postgres.py tablespace_*). They act for
// real through psql. Where Salt's code misbehaves brine does what it meant: test=True never
// alters the owner (Salt's calls tablespace_alter before looking at test), a failed CREATE is a
// failure naming psql's reason (Salt's raises KeyError), and options are compared by value
// (Salt's substring check takes seq_page_cost=1.15 for 1.1).

import { defineState, type StateContext, type StateFunction } from '../../types.js';
import { stateResult } from '../state-result.js';
import { type PgConnection, psql } from './postgres-client.js';
import { absentState, CONNECTION_PARAMS, failed, isResult, lookUp } from './postgres-common.js';

// Salt's comments keep the indentation of its triple-quoted strings; operators' scripts compare them.
const WRONG_LOCATION = (name: string) => `Tablespace ${name} is not at the right location. This is\n            unfixable without dropping and recreating the tablespace.`;
const OPTIONS_TO_ALTER = (name: string) => `Tablespace ${name} options to be\n                        altered`;

interface Tablespace {
  owner: string;
  location: string;
  options: Map<string, string>;
}

/** spcoptions as psql prints a text[]: `{seq_page_cost=1.1,random_page_cost=3.9}`, empty for none. */
export function parseSpcOptions(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const body = text.replace(/^\{/, '').replace(/\}$/, '');
  if (body === '') return out;
  for (const item of body.split(',')) {
    const unquoted = item.replace(/^"(.*)"$/, '$1');
    const eq = unquoted.indexOf('=');
    if (eq > 0) out.set(unquoted.slice(0, eq), unquoted.slice(eq + 1));
  }
  return out;
}

/** Whether the server's value is the one asked for: as numbers when both are (1 and 1.0 match). */
function sameOption(have: string | undefined, want: unknown): boolean {
  if (have === undefined) return false;
  const a = Number(have);
  const b = typeof want === 'number' ? want : Number(want);
  return have.trim() !== '' && Number.isFinite(a) && Number.isFinite(b) ? a === b : have === String(want);
}

/** PostgreSQL stores a location without a trailing slash; `/srv/ts/` names the same place. */
const samePath = (a: string, b: string) => a.replace(/(.)\/+$/, '$1') === b.replace(/(.)\/+$/, '$1');

async function tablespace(ctx: StateContext, c: PgConnection, name: string): Promise<Tablespace | undefined> {
  const rows = await psql(ctx, c, `SELECT pg_get_userbyid(t.spcowner), pg_tablespace_location(t.oid), coalesce(t.spcoptions::text, '') FROM pg_tablespace t WHERE t.spcname = :'n';`, { n: name });
  const row = rows[0];
  if (row === undefined) return undefined;
  return { owner: row[0] ?? '', location: row[1] ?? '', options: parseSpcOptions(row[2] ?? '') };
}

/** `WITH ( k = v, ... )` with every name and value as a psql variable, never spliced. */
function withOptions(options: Record<string, unknown>, vars: Record<string, string>): string {
  const items = Object.entries(options).map(([k, v], i) => {
    vars[`ok${i}`] = k;
    vars[`ov${i}`] = String(v);
    return `:"ok${i}" = :'ov${i}'`;
  });
  return items.length ? ` WITH ( ${items.join(', ')} )` : '';
}

const tablespacePresent = defineState({
  name: 'postgres_tablespace.present',
  doc: 'Make sure a PostgreSQL tablespace exists at a directory, with an owner and options if given (acts for real).',
  params: [
    { name: 'name', type: 'string', required: true },
    { name: 'directory', type: 'string', required: true, doc: 'where the tablespace lives; must exist, empty and owned by the server account' },
    { name: 'options', type: 'map', doc: 'seq_page_cost, random_page_cost, effective_io_concurrency, maintenance_io_concurrency' },
    { name: 'owner', type: 'string', doc: 'the role that owns it (default: the role connecting)' },
    ...CONNECTION_PARAMS,
  ],
  example: 'ssd-tablespace:\n  postgres_tablespace.present:\n    - name: indexes\n    - directory: /mnt/ssd-data\n    - options:\n        random_page_cost: 1.1',
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    const options = (n.options ?? {}) as Record<string, unknown>;
    const found = await lookUp(
      ctx,
      name,
      n,
      () => stateResult(name, null, `Tablespace ${name} is set to be created`),
      (c) => tablespace(ctx, c, name),
    );
    if (isResult(found)) return found;
    const { c, value: ts } = found;
    if (ts === undefined) {
      if (ctx.test) return stateResult(name, null, `Tablespace ${name} is set to be created`);
      const vars: Record<string, string> = { n: name, d: n.directory };
      if (n.owner) vars.o = n.owner;
      try {
        await psql(ctx, c, `CREATE TABLESPACE :"n"${n.owner ? ` OWNER :"o"` : ''} LOCATION :'d'${withOptions(options, vars)};`, vars);
      } catch (err) {
        return failed(name, `Failed to create tablespace ${name}`, err);
      }
      return stateResult(name, true, `The tablespace ${name} has been created`, { [name]: 'Present' });
    }
    // Salt checks the location only on a real run: test=True goes on to the owner and options.
    if (!ctx.test && !samePath(ts.location, n.directory)) return stateResult(name, false, WRONG_LOCATION(name));
    const ownerChange = Boolean(n.owner) && ts.owner !== n.owner;
    const optionChanges = Object.entries(options).filter(([k, v]) => !sameOption(ts.options.get(k), v));
    if (ctx.test) {
      if (optionChanges.length) return stateResult(name, null, OPTIONS_TO_ALTER(name));
      return ownerChange ? stateResult(name, null, `Tablespace ${name} owner to be altered`) : stateResult(name, true, `Tablespace ${name} is already present`);
    }
    const changes: Record<string, unknown> = {};
    let comment = `Tablespace ${name} is already present`;
    try {
      if (ownerChange) {
        await psql(ctx, c, `ALTER TABLESPACE :"n" OWNER TO :"o";`, { n: name, o: String(n.owner) });
        changes.owner = n.owner;
        comment = `Tablespace ${name} owner changed`;
      }
      for (const [k, v] of optionChanges) {
        await psql(ctx, c, `ALTER TABLESPACE :"n" SET ( :"k" = :'v' );`, { n: name, k, v: String(v) });
        changes.options = { ...(changes.options as object | undefined), [k]: v };
        comment = `Tablespace ${name} opts changed`;
      }
    } catch (err) {
      return failed(name, `Failed to alter tablespace ${name}`, err);
    }
    return stateResult(name, true, comment, Object.keys(changes).length ? { [name]: changes } : {});
  },
});

const tablespaceAbsent = absentState({
  name: 'postgres_tablespace.absent',
  doc: 'Make sure a PostgreSQL tablespace does not exist (acts for real).',
  example: 'old-tablespace:\n  postgres_tablespace.absent:\n    - name: indexes',
  noun: 'Tablespace',
  exists: `SELECT 1 FROM pg_tablespace WHERE spcname = :'n';`,
  drop: `DROP TABLESPACE :"n";`,
});

export const postgresTablespaceStates: readonly StateFunction[] = [tablespacePresent, tablespaceAbsent];
