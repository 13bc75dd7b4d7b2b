import express from 'express';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Serves the official client's browser build (`@modelcontextprotocol/client`, plain ES modules) straight from
 * node_modules, with the import map that lets the page `import { Client } from '@modelcontextprotocol/client'`:
 * no bundler. Only these packages are served, each resolved the way a bundler would for a browser (the `browser`
 * and `import` export conditions).
 */
const BARE_IMPORTS = [
  '@modelcontextprotocol/client',
  '@modelcontextprotocol/client/_shims',
  '@modelcontextprotocol/core/internal',
  'zod',
  'zod/v4',
  'zod/v4/core',
  'zod/compile',
  'pkce-challenge',
  'eventsource',
  'eventsource-parser',
  'eventsource-parser/stream',
  'jose',
];

const CONDITIONS = ['browser', 'import', 'module', 'default'];

export interface Vendor {
  /** `<script type="importmap">` content. */
  importMap: { imports: Record<string, string> };
  /** Serves `/vendor/<package>/…` from the packages the import map names. */
  router: express.Router;
}

export function vendorClient(prefix = '/vendor'): Vendor {
  const imports: Record<string, string> = {};
  const packages = new Map<string, string>();
  for (const specifier of BARE_IMPORTS) {
    const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
    const dir = packageDir(name);
    const target = exportTarget(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')), '.' + specifier.slice(name.length));
    if (!target) throw new Error(`${specifier} has no browser entry point`);
    imports[specifier] = `${prefix}/${name}/${path.posix.normalize(target)}`;
    packages.set(name, dir);
  }
  const router = express.Router();
  for (const [name, dir] of packages) {
    router.use(`${prefix}/${name}`, express.static(dir, { index: false, dotfiles: 'ignore', fallthrough: false }));
  }
  return { importMap: { imports }, router };
}

function packageDir(name: string): string {
  // Every package here exports its package.json or can be found next to the client's.
  const client = path.dirname(require.resolve('@modelcontextprotocol/client'));
  for (let dir = client; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`Cannot find the package ${name}: npm install it`);
  }
}

type Exports = string | null | { [key: string]: Exports } | Exports[];

function exportTarget(pkg: { exports?: Exports; module?: string; main?: string }, subpath: string): string | undefined {
  if (pkg.exports === undefined) return subpath === '.' ? (pkg.module ?? pkg.main ?? 'index.js') : subpath + '.js';
  const exports = pkg.exports;
  const entry = typeof exports === 'object' && exports !== null && !Array.isArray(exports) && Object.keys(exports).some((key) => key.startsWith('.')) ? exports[subpath] : subpath === '.' ? exports : undefined;
  return pick(entry);
}

function pick(entry: Exports | undefined): string | undefined {
  if (typeof entry === 'string') return entry;
  if (Array.isArray(entry)) return pick(entry[0]);
  if (entry && typeof entry === 'object') {
    for (const condition of CONDITIONS) {
      if (condition in entry) {
        const found = pick(entry[condition]);
        if (found) return found;
      }
    }
  }
  return undefined;
}
