#!/usr/bin/env -S npx tsx
// The `easgen` executable (package.json "bin"); runs TypeScript directly through tsx.

import { runCli } from "./cli.js";

process.exitCode = await runCli(process.argv.slice(2));
