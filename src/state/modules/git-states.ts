// The `git` state module: git.latest, git.config_set and git.config_unset, each failing softly (an error thrown at
// run time fails that state only).

import type { StateFunction } from '../types.js';
import { gitConfigSet } from './git-config.js';
import { gitConfigUnset } from './git-config-unset.js';
import { gitLatest } from './git-latest.js';
import { failingSoftly } from './state-result.js';

export const gitStates: readonly StateFunction[] = [gitLatest, gitConfigSet, gitConfigUnset].map(failingSoftly);
