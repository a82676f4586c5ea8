// Where the package runs, and Node's own modules when it runs in Node. The specifier is built at run
// time and marked ignore, so that a bundler building for a browser (Vite, webpack) neither bundles nor
// externalises node:os, node:fs or node:worker_threads: the import only ever runs in Node.
export const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

/** import('node:NAME'), out of bundlers' sight. */
export const nodeModule = (name) => import(/* @vite-ignore */ /* webpackIgnore: true */ `node:${name}`);
