// The states for services outside brine (docker, firewalls, databases, SELinux, ifupdown,
// certificates), each failing softly: an error thrown at run time fails that state only.

import type { StateFunction } from '../../types.js';
import { failingSoftly } from '../state-result.js';
import { dockerStates } from './docker-states.js';
import { iptablesStates } from './iptables-states.js';
import { postgresObjectStates } from './postgres-objects.js';
import { postgresRoleStates } from './postgres-roles.js';

export const externalStateFunctions: readonly StateFunction[] = [...dockerStates, ...iptablesStates, ...postgresRoleStates, ...postgresObjectStates].map(failingSoftly);
