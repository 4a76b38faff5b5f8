// Builds the browser bundles: js/main.js -> static/frontend/bundle.js,
// js/session/main.js -> static/frontend/session.js, and js/studio/main.js ->
// static/frontend/studio.js.
//
//   cd frontend && npm ci && node build.mjs            # minified, for deployment and tests
//   cd frontend && node build.mjs --watch              # rebuild on change while developing
//
// Paths are resolved from this file, so the build works from any working directory.
import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const watch = process.argv.includes("--watch");

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
