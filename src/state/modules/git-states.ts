// The `git` state module: git.latest and git.config_set, each failing softly (an error thrown at
// run time fails that state only).

import type { StateFunction } from '../types.js';
import { gitConfigSet } from './git-config.js';
import { gitLatest } from './git-latest.js';
import { failingSoftly } from './state-result.js';

export const gitStates: readonly StateFunction[] = [gitLatest, gitConfigSet].map(failingSoftly);
