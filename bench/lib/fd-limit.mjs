// Open-file limits: a fleet benchmark holds one descriptor per connection in several processes.
// Node cannot call setrlimit, so the script re-executes itself under `ulimit -n` when needed.

import { execFileSync, spawnSync } from 'node:child_process';

function limit(flag) {
  const v = execFileSync('sh', ['-c', `ulimit ${flag}`], { encoding: 'utf8' }).trim();
  return v === 'unlimited' ? Infinity : Number(v);
}

/**
 * Makes sure each process may open `needed` files. Raises the soft limit by re-running this
 * script under `ulimit -n` (children inherit it); exits with a clear message if the hard limit
 * is too low. Returns only in a process whose limit is high enough.
 */
export function ensureFdLimit(needed) {
  const soft = limit('-Sn');
  if (soft >= needed) return soft;
  const hard = limit('-Hn');
  if (hard < needed) {
    process.stderr.write(`bench: needs ${needed} open files per process but the hard limit is ${hard}; raise it (e.g. /etc/security/limits.conf or \`ulimit -Hn\` as root) or lower --count\n`);
    process.exit(2);
  }
  if (process.env.BRINE_BENCH_REEXEC) {
    process.stderr.write(`bench: could not raise the open-file limit to ${needed} (still ${soft})\n`);
    process.exit(2);
  }
  const r = spawnSync('sh', ['-c', `ulimit -Sn ${needed} && exec "$@"`, 'sh', process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BRINE_BENCH_REEXEC: '1' },
  });
  process.exit(r.status ?? 1);
}
