// Whether this minion can reach a docker daemon, as the docker CLI does. Shared by the docker
// states (src/state/modules/external) and the dockercompose/swarm execution functions, which
// brine answers but does not drive yet: what they report is what the operator must do next.

import { runArgv, which } from './host-tools.js';

/** Why docker cannot be used here: a sentence the operator can act on. */
export interface DockerUnreachable {
  reason: string;
}

/** The docker program's absolute path, or why it is missing (with the Debian package providing it). */
export function findDocker(): { path: string } | DockerUnreachable {
  const path = which('docker');
  if (path !== undefined) return { path };
  return { reason: `docker is not installed on this minion (not on PATH: ${process.env.PATH ?? ''}); install the docker.io package` };
}

/**
 * The docker daemon as the docker CLI reaches it (DOCKER_HOST or the default socket). The CLI
 * is asked rather than the socket opened, so DOCKER_HOST, contexts and TLS settings apply as
 * they do for the operator's own `docker` commands.
 */
export async function dockerReachable(signal?: AbortSignal): Promise<{ path: string } | DockerUnreachable> {
  const prog = findDocker();
  if ('reason' in prog) return prog;
  const r = await runArgv('docker', [prog.path, 'version', '--format', '{{.Server.Version}}'], { signal, timeoutMs: 15_000 });
  if (r.retcode === 0 && r.stdout.trim() !== '') return prog;
  const why = (r.stderr || r.stdout).trim().split('\n').pop() ?? '';
  return {
    reason: `docker is not running: start the docker daemon (systemctl start docker) or point DOCKER_HOST at a running one${why ? ` (docker said: ${why})` : ''}`,
  };
}
