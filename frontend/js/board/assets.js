// Where Excalidraw loads its fonts from: the site's own copy (build.mjs copies them to
// static/frontend/fonts/), never its CDN fallback. The script tag that loads board.js carries
// the path (data-asset-path="{% static 'frontend/' %}"): no inline script sets it, as the
// Content-Security-Policy (core/csp.py) allows none. Imported first by main.js, so the path is
// set before Excalidraw's modules run.
const script = document.currentScript;
const path = script?.dataset.assetPath || document.querySelector("[data-asset-path]")?.dataset.assetPath;
if (path) window.EXCALIDRAW_ASSET_PATH = path;
