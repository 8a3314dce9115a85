// Types of service/start.mjs (plain JavaScript, so that `npm start` needs no TypeScript loader).

/**
 * Bundles `entry` (a .ts file of this project, relative to its root) with esbuild into
 * dist/service/<name>-<hash>.mjs unless that file exists, and returns its absolute path.
 */
export function bundleEntry(entry: string, name: string): Promise<string>;
