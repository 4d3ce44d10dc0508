// Every built-in state function, registered explicitly (one file per state module).

import type { StateFunction } from '../types.js';
import { testStateFunctions } from './test-states.js';

export const builtinStateFunctions: readonly StateFunction[] = [...testStateFunctions];
