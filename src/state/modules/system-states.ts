// The system state modules (packages, repositories, services, commands, users, groups, cron,
// module.run), each failing softly: an error thrown at run time fails that state only.

import type { StateFunction } from '../types.js';
import { cmdStates } from './cmd-states.js';
import { cronStates } from './cron-states.js';
import { groupStates } from './group-states.js';
import { moduleStates } from './module-states.js';
import { pkgStates } from './pkg-states.js';
import { pkgrepoStates } from './pkgrepo-states.js';
import { serviceMaskStates } from './service-mask-states.js';
import { serviceStates } from './service-states.js';
import { failingSoftly } from './state-result.js';
import { userStates } from './user-states.js';

export const systemStateFunctions: readonly StateFunction[] = [
  ...pkgStates,
  ...pkgrepoStates,
  ...serviceStates,
  ...serviceMaskStates,
  ...cmdStates,
  ...userStates,
  ...groupStates,
  ...cronStates,
  ...moduleStates,
].map(failingSoftly);
