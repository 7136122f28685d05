// Package entry points every esbuild bundle of Scroll uses (scripts/build.mjs, and the production
// bundle bench/activation.bench.mjs builds itself). jsonc-parser's `main` is a UMD build whose
// factory loads its own files through the `require` it is handed, which a bundle cannot resolve
// ("Cannot find module './impl/format'" at run time); its ES module build imports them statically.
export const BUNDLE_ALIAS = { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };
