// A real PostgreSQL server (Debian's postgresql package) for a test: initdb in a temp dir as the
// postgres account, trust authentication, on 127.0.0.1 and a free port; `stop()` ends it and
// removes the directory. `skipReason` says why it cannot run here (not root, not installed).

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';
import { repoRoot } from './repo.js';

const PG_BIN = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'].find((d) => fs.existsSync(path.join(d, 'initdb')));
const hasPostgresUser = spawnSync('id', ['postgres']).status === 0;

/** Why a real server cannot be started here, or false. */
export const postgresSkipReason: string | false =
  process.getuid?.() !== 0
    ? 'needs root to run initdb as the postgres account'
    : PG_BIN === undefined || !hasPostgresUser
      ? 'PostgreSQL is not installed (Debian: apt-get install postgresql postgresql-contrib)'
      : false;

const asPg = (argv: string[]) => execFileSync('runuser', ['-u', 'postgres', '--', ...argv], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export class PostgresServer {
  private running = true;

  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  static async start(): Promise<PostgresServer> {
    if (PG_BIN === undefined) throw new Error(String(postgresSkipReason));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-pg-'));
    execFileSync('chown', ['postgres:', dir]);
    const port = await freePort();
    asPg([path.join(PG_BIN, 'initdb'), '-D', path.join(dir, 'data'), '--auth=trust', '-U', 'postgres', '--encoding=UTF8', '--locale=C']);
    const server = new PostgresServer(dir, port);
    server.startAgain();
    return server;
  }

  /** psql as the postgres superuser: the query's rows, unaligned, one per line. */
  sql(query: string, dbname = 'postgres'): string {
    return execFileSync('psql', ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-d', dbname, '-v', 'ON_ERROR_STOP=1', '-tAc', query], { encoding: 'utf8' }).trim();
  }

  /** Stops the server, keeping its data (a test of a store that is down). */
  pause(): void {
    if (PG_BIN === undefined || !this.running) return;
    spawnSync('runuser', ['-u', 'postgres', '--', path.join(PG_BIN, 'pg_ctl'), '-D', path.join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']);
    this.running = false;
  }

  startAgain(): void {
    if (PG_BIN === undefined) return;
    const data = path.join(this.dir, 'data');
    asPg([path.join(PG_BIN, 'pg_ctl'), '-D', data, '-l', path.join(this.dir, 'log'), '-w', '-o', `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1`, 'start']);
    this.running = true;
  }

  stop(): void {
    this.pause();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The tables of Salt's postgres returner, as docs/returners.md tells the operator to create them. */
export function saltReturnerTables(): string {
  const doc = fs.readFileSync(path.join(repoRoot(), 'docs', 'returners.md'), 'utf8');
  const m = /```sql\n([\s\S]*?)```/.exec(doc);
  if (!m?.[1]) throw new Error('docs/returners.md has no ```sql block with the tables');
  return m[1];
}
