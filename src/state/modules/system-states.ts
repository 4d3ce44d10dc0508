// The system state modules (packages, repositories, services, commands, users, groups, cron,
// module.run), each failing softly: an error thrown at run time fails that state only.

import type { StateFunction } from '../types.js';
import { alternativesStates } from './alternatives-states.js';
import { apacheModuleStates } from './apache-module-states.js';
import { cmdStates } from './cmd-states.js';
import { cronStates } from './cron-states.js';
import { debconfFileStates } from './debconf-set-file.js';
import { debconfStates } from './debconf-states.js';
import { grainsStates } from './grains-states.js';
import { groupStates } from './group-states.js';
import { localeStates } from './locale-states.js';
import { moduleStates } from './module-states.js';
import { mountStates } from './mount-states.js';
import { swapStates } from './mount-swap.js';
import { fstabStates } from './fstab-states.js';
import { pkgStates } from './pkg-states.js';
import { pkgrepoStates } from './pkgrepo-states.js';
import { pkgUptodateStates } from './pkg-uptodate.js';
import { serviceMaskStates } from './service-mask-states.js';
import { serviceStates } from './service-states.js';
import { failingSoftly } from './state-result.js';
import { sysctlStates } from './sysctl-states.js';
import { timezoneStates } from './timezone-states.js';
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
  ...sysctlStates,
  ...apacheModuleStates,
  ...pkgUptodateStates,
  ...mountStates,
  ...swapStates,
  ...fstabStates,
  ...debconfStates,
  ...debconfFileStates,
  ...grainsStates,
  ...alternativesStates,
  ...timezoneStates,
  ...localeStates,
].map(failingSoftly);
