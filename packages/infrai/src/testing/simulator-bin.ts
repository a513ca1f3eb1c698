#!/usr/bin/env node
import { runSimulatorCli } from './simulator-cli';

// No top-level await: the bin is also built as CommonJS.
runSimulatorCli(process.argv.slice(2));
