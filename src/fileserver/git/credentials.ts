// How a remote's credentials reach git without reaching argv, a URL or a log: an SSH key goes
// in GIT_SSH_COMMAND (`-i key -o IdentitiesOnly=yes`, host key checking per option), an HTTPS
// user and password through GIT_ASKPASS, a tiny script that prints them from the git child's
// own environment (the password is in no file and no command line).

import * as fs from 'node:fs';
import * as path from 'node:path';

export interface GitAuth {
  user: string;
  password: string;
  privkey: string;
  pubkey: string;
  /** ssh's StrictHostKeyChecking: yes (default), accept-new or no. */
  strictHostKeyChecking: string;
  /** A known_hosts file for the remotes; '' uses ssh's default (~/.ssh/known_hosts). */
  knownHosts: string;
  /** false: git_pillar's ssl_verify: False (GIT_SSL_NO_VERIFY), for a self-signed HTTPS server the operator accepts. */
  sslVerify?: boolean;
}

const ASKPASS = `#!/bin/sh
# brine gitfs: answers git's username/password prompts from the environment git was given
case "$1" in
  Username*) printf '%s\\n' "$BRINE_GIT_USER" ;;
  *) printf '%s\\n' "$BRINE_GIT_PASSWORD" ;;
esac
`;

/** A single-quoted word for the shell GIT_SSH_COMMAND is run by. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Writes the askpass helper once under `dir` (0700) and returns its path. */
export function askpassScript(dir: string): string {
  const file = path.join(dir, 'askpass.sh');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== ASKPASS) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, ASKPASS, { mode: 0o700 });
    fs.renameSync(tmp, file);
  }
  return file;
}

/** The environment a git fetch of this remote runs with. */
export function gitAuthEnv(auth: GitAuth, helperDir: string): Record<string, string> {
  const ssh = ['ssh', '-o', 'BatchMode=yes', '-o', `StrictHostKeyChecking=${auth.strictHostKeyChecking}`];
  if (auth.knownHosts !== '') ssh.push('-o', `UserKnownHostsFile=${auth.knownHosts}`);
  if (auth.privkey !== '') ssh.push('-i', auth.privkey, '-o', 'IdentitiesOnly=yes');
  const env: Record<string, string> = { GIT_SSH_COMMAND: ssh.map(shellQuote).join(' '), GIT_SSH_VARIANT: 'ssh' };
  if (auth.sslVerify === false) env.GIT_SSL_NO_VERIFY = 'true';
  if (auth.user !== '' || auth.password !== '') {
    env.GIT_ASKPASS = askpassScript(helperDir);
    env.BRINE_GIT_USER = auth.user;
    env.BRINE_GIT_PASSWORD = auth.password;
  }
  return env;
}
