#!/usr/bin/env node
// Builds the package twice (ESM in dist/esm, CommonJS in dist/cjs) and the examples (dist/examples).
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const tsc = require.resolve('typescript/bin/tsc');
const run = (args) => execFileSync(process.execPath, [tsc, ...args], { cwd: root, stdio: 'inherit' });

fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
run(['-p', 'tsconfig.build.json']);
run(['-p', 'tsconfig.build.json', '--module', 'commonjs', '--moduleResolution', 'node', '--outDir', 'dist/cjs']);
fs.writeFileSync(path.join(root, 'dist/esm/package.json'), '{ "type": "module" }\n');
fs.writeFileSync(path.join(root, 'dist/cjs/package.json'), '{ "type": "commonjs" }\n');
if (fs.existsSync(path.join(root, 'tsconfig.examples.json'))) run(['-p', 'tsconfig.examples.json']);
