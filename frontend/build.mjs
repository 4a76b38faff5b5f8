// Builds the browser bundles: js/main.js -> static/frontend/bundle.js,
// js/session/main.js -> static/frontend/session.js, js/studio/main.js ->
// static/frontend/studio.js, and js/board/main.js -> static/frontend/board.{js,css} (the
// design round's whiteboard: Excalidraw and React) with Excalidraw's fonts copied to
// static/frontend/fonts/, so the site serves every file the board loads; and axe-core's
// axe.min.js -> static/frontend/axe.min.js, the accessibility engine the browser tests inject
// (tests/e2e/a11y.py) from the site itself, never from a CDN.
//
//   cd frontend && npm ci && node build.mjs            # minified, for deployment and tests
//   cd frontend && node build.mjs --watch              # rebuild on change while developing
//
// Paths are resolved from this file, so the build works from any working directory.
import * as esbuild from "esbuild";
import { copyFile, mkdir, readdir, readFile, rename, stat } from "node:fs/promises";
import { join } from "node:path";
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

// Excalidraw lists a CDN (esm.sh) after the asset path as every font's second source; even
// unused, chromium reports each such source as a font-src violation of the site's policy, and
// a font the site failed to serve would be fetched from outside. The fallback becomes the
// site's own copy (window.EXCALIDRAW_ASSET_PATH, js/board/assets.js), and the build fails if
// a new Excalidraw version no longer has the line this replaces.
const EXCALIDRAW_CDN = /`https:\/\/esm\.sh\/\$\{.*?\}\/dist\/prod\/`/g;
const excalidrawSiteFonts = {
  name: "excalidraw-site-fonts",
  setup(build) {
    build.onLoad({ filter: /@excalidraw[\\/]excalidraw[\\/]dist[\\/]prod[\\/].*\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!source.includes("esm.sh")) return undefined;
      const contents = source.replace(
        EXCALIDRAW_CDN,
        'new URL(window.EXCALIDRAW_ASSET_PATH || "/static/frontend/", window.location.href).href',
      );
      if (contents.includes("esm.sh")) throw new Error(`${args.path}: an esm.sh URL is left`);
      return { contents, loader: "js" };
    });
  },
};

// The board speaks English only (main.js sets langCode "en", which Excalidraw has built in):
// its 50-odd other translations, each loaded on demand by a dynamic import that an IIFE bundle
// cannot split off, would add 1.7 MB to every design page. Each becomes an empty table (a
// missing key falls back to English).
const excalidrawEnglishOnly = {
  name: "excalidraw-english-only",
  setup(build) {
    const locales = /@excalidraw[\\/]excalidraw[\\/]dist[\\/]prod[\\/]locales[\\/]([^\\/]+)\.js$/;
    build.onLoad({ filter: locales }, (args) => {
      const name = locales.exec(args.path)[1];
      if (name.startsWith("en-") || name.startsWith("percentages-")) return undefined;
      return { contents: "export default {};", loader: "js" };
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

// The design session's whiteboard (loaded only on design-session and design-replay pages).
// Its stylesheet's fonts (`url("./fonts/…")`) and the fonts the canvas loads through
// window.EXCALIDRAW_ASSET_PATH are the same files, copied below: left as relative URLs here.
const boardOptions = {
  ...options,
  entryPoints: [here("./js/board/main.js")],
  outfile: here("./static/frontend/board.js"),
  external: ["./fonts/*"],
  // The package's exports name its stylesheet (and its minified build) under "production".
  conditions: ["production"],
  define: { "process.env.NODE_ENV": '"production"', "process.env.IS_PREACT": '"false"' },
  plugins: [excalidrawSiteFonts, excalidrawEnglishOnly],
};

// Excalidraw's fonts (hashed file names, subsets of each face): copied whole, so any text
// on the board (CJK included) renders from the site and never from Excalidraw's CDN fallback.
// Only what is missing or changed is written: a running server (the browser tests rebuild while
// another platform serves) never sees a font half-written or gone.
async function copyChanged(from, to) {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      await copyChanged(source, target);
      continue;
    }
    const [a, b] = await Promise.all([stat(source), stat(target).catch(() => null)]);
    if (b && b.size === a.size && b.mtimeMs >= a.mtimeMs) continue;
    const partial = `${target}.partial`;
    await copyFile(source, partial);
    await rename(partial, target);
  }
}
await copyChanged(
  here("./node_modules/@excalidraw/excalidraw/dist/prod/fonts"),
  here("./static/frontend/fonts"),
);

// The accessibility audit's engine, copied as released (it is loaded only by the browser tests).
{
  const source = here("./node_modules/axe-core/axe.min.js");
  const target = here("./static/frontend/axe.min.js");
  const [a, b] = await Promise.all([stat(source), stat(target).catch(() => null)]);
  if (!b || b.size !== a.size || b.mtimeMs < a.mtimeMs) {
    await copyFile(source, `${target}.partial`);
    await rename(`${target}.partial`, target);
  }
}

for (const each of [options, sessionOptions, studioOptions, boardOptions]) {
  if (watch) {
    const context = await esbuild.context(each);
    await context.watch();
  } else {
    await esbuild.build(each);
  }
}
