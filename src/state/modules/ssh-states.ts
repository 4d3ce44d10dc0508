// The ssh state modules (ssh_auth, ssh_known_hosts), each failing softly: an error thrown at run
// time (an unknown key type, an unreadable file) fails that state only.

import type { StateFunction } from '../types.js';
import { sshAuthAbsent, sshAuthPresent } from './ssh-auth.js';
import { sshKnownHostsAbsent, sshKnownHostsPresent } from './ssh-known-hosts.js';
import { failingSoftly } from './state-result.js';

export const sshStates: readonly StateFunction[] = [sshAuthPresent, sshAuthAbsent, sshKnownHostsPresent, sshKnownHostsAbsent].map(failingSoftly);
