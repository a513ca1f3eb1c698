#!/usr/bin/env node
import { runAsProcess } from './run-process';

// No top-level await: the bin is also built as CommonJS.
runAsProcess(process.argv.slice(2));
