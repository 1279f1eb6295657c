/** Types of `build.mjs` (a plain ES module script, run with node). */

/** Output name → entry point. */
export declare const BUILD_ENTRIES: Readonly<Record<string, string>>;

/** Bundles every service and command into `outdir` (default `dist/`), emptied first; resolves to `outdir`. */
export declare function buildAll(outdir?: string): Promise<string>;
