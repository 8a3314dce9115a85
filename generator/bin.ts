#!/usr/bin/env node
// The `easgen` executable of the built package (lib/generator/bin.js, its package.json "bin"): compiled
// JavaScript run by plain node. In the repository, `npm run generate|check|validate` run cli.ts through tsx.

import { runCli } from "./cli.js";

process.exitCode = await runCli(process.argv.slice(2), { program: "npx easgen" });
