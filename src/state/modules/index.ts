// Every built-in state function, registered explicitly (one file per state module).

import type { StateFunction } from '../types.js';
import { systemStateFunctions } from './system-states.js';

export const builtinStateFunctions: readonly StateFunction[] = [...systemStateFunctions];
