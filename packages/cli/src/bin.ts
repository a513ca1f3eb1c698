#!/usr/bin/env node
import { processIo } from './io';
import { main } from './main';

// No top-level await: the bin is also built as CommonJS.
void main(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
