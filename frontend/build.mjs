// Builds the browser bundles: js/main.js -> static/frontend/bundle.js,
// js/session/main.js -> static/frontend/session.js, and js/studio/main.js ->
// static/frontend/studio.js.
//
//   cd frontend && npm ci && node build.mjs            # minified, for deployment and tests
//   cd frontend && node build.mjs --watch              # rebuild on change while developing
//
// Paths are resolved from this file, so the build works from any working directory.
import * as esbuild from "esbuild";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const watch = process.argv.includes("--watch");

// @replit/codemirror-emacs fills its key table and command list with top-level calls that it
// marks /*@__PURE__*/ ("EmacsHandler.bindKey(...)", "EmacsHandler.addCommands(...)"). Their
// results are unused, so a minifier that trusts the mark drops them, and the Emacs keymap then
// binds no key at all (issue 26). This plugin removes just those marks from that one file.
const emacsKeysKept = {
  name: "emacs-keys-kept",
  setup(build) {
    build.onLoad({ filter: /codemirror-emacs[\\/]dist[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      return { contents: source.replaceAll("/*@__PURE__*/EmacsHandler.", "EmacsHandler."), loader: "js" };
    });
  },
};

/** @type {import("esbuild").BuildOptions} */
const options = {
  entryPoints: [here("./js/main.js")],
  outfile: here("./static/frontend/bundle.js"),
  bundle: true,
  format: "iife",
  // Debian bookworm's chromium and every evergreen browser handle ES2020.
  target: ["es2020"],
  minify: !watch,
  sourcemap: "linked",
  legalComments: "linked",
  logLevel: "info",
  plugins: [emacsKeysKept],
};

// The interview-session pages (live/solo session, replay) load their own bundle.
const sessionOptions = {
  ...options,
  entryPoints: [here("./js/session/main.js")],
  outfile: here("./static/frontend/session.js"),
};

// The authoring studio's pages: htmx and a code editor over each code field.
const studioOptions = {
  ...options,
  entryPoints: [here("./js/studio/main.js")],
  outfile: here("./static/frontend/studio.js"),
};

for (const each of [options, sessionOptions, studioOptions]) {
  if (watch) {
    const context = await esbuild.context(each);
    await context.watch();
  } else {
    await esbuild.build(each);
  }
}
