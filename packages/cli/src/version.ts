import manifest from '../package.json' with { type: 'json' };

/** The package's own version, bundled in at build time so the bin never reads files to print it. */
export const VERSION: string = manifest.version;
