#!/usr/bin/env node
// Entry point for the `brine` command; the CLI lives in dist/src/cli after `npm run build`.
import '../dist/src/cli/main.js';
