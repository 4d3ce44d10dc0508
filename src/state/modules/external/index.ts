// The states for services outside brine (docker, firewalls, databases, SELinux, ifupdown,
// certificates), each failing softly: an error thrown at run time fails that state only.

import type { StateFunction } from '../../types.js';
import { failingSoftly } from '../state-result.js';
import { dockerStates } from './docker-states.js';
import { firewalldStates } from './firewalld-states.js';
import { iptablesStates } from './iptables-states.js';
import { mysqlGrantStates } from './mysql-grants.js';
import { mysqlStates } from './mysql-states.js';
import { networkStates } from './network-states.js';
import { pdbeditStates } from './pdbedit-states.js';
import { postgresObjectStates } from './postgres-objects.js';
import { postgresRoleStates } from './postgres-roles.js';
import { postgresTablespaceStates } from './postgres-tablespace.js';
import { selinuxStates } from './selinux-states.js';
import { x509CertStates } from './x509-cert.js';
import { x509KeyStates } from './x509-key.js';

export const externalStateFunctions: readonly StateFunction[] = [
  ...dockerStates,
  ...iptablesStates,
  ...postgresRoleStates,
  ...postgresObjectStates,
  ...postgresTablespaceStates,
  ...x509KeyStates,
  ...x509CertStates,
  ...mysqlStates,
  ...mysqlGrantStates,
  ...selinuxStates,
  ...firewalldStates,
  ...networkStates,
  ...pdbeditStates,
].map(failingSoftly);
