// The board schema's JS twin (frontend/js/board/schema.js) on the shared vectors
// (tests/fixtures/board_elements.json) or on a file of values, run by
// tests/frontend/test_board_schema.py with node. Prints one JSON line: the problem (or null)
// of each case, in order; the Python test compares them with interviews/boardschema.py's.
//
//   node board_schema.mjs <frontend dir> cases <board_elements.json>
//   node board_schema.mjs <frontend dir> values <file of [[key, value], ...]>
import { readFileSync } from "node:fs";

const [, , frontend, mode, path] = process.argv;
const { elementProblem } = await import(`${frontend}/js/board/schema.js`);

/** {"$number": "NaN"} -> NaN, {"$repeat": [item, n]} -> n items (or a repeated string). */
export function decode(value) {
  if (Array.isArray(value)) return value.map(decode);
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === "$number") return Number(value.$number);
  if (keys.length === 1 && keys[0] === "$repeat") {
    const [item, n] = value.$repeat;
    return typeof item === "string" ? item.repeat(n) : Array.from({ length: n }, () => decode(item));
  }
  return Object.fromEntries(keys.map((key) => [key, decode(value[key])]));
}

const data = JSON.parse(readFileSync(path, "utf8"));
let problems;
if (mode === "cases") {
  problems = data.cases.map((c) => {
    let element;
    if (c.base === null) element = decode(c.raw);
    else {
      element = { ...data.bases[c.base], ...decode(c.set) };
      for (const key of c.unset) delete element[key];
    }
    return elementProblem(element, c.key);
  });
  console.log(JSON.stringify(problems));
} else {
  const values = data.map(([key, value]) => [key, decode(value)]);
  problems = values.map(([key, value]) => elementProblem(value, key));
  // The same values written into a board's Y.Map one update each, as a hostile page would,
  // with the real binding on a stand-in for Excalidraw that throws where Excalidraw would
  // (points.reduce, groupIds.length, NaN geometry): nothing may throw, and everything the
  // scene holds must pass the schema.
  const Y = await import(`${frontend}/node_modules/yjs/dist/yjs.mjs`);
  const { BoardBinding } = await import(`${frontend}/js/board/binding.js`);
  const scene = {
    elements: [],
    getSceneElementsIncludingDeleted() {
      return this.elements;
    },
    updateScene({ elements }) {
      for (const e of elements) {
        if (["line", "arrow", "freedraw"].includes(e.type)) e.points.reduce((n, p) => n + p[0] + p[1], 0);
        if (typeof e.groupIds.length !== "number" || !Number.isFinite(e.x + e.y + e.width + e.height)) throw new Error(`bad ${e.id}`);
      }
      this.elements = elements;
    },
  };
  const doc = new Y.Doc();
  const map = doc.getMap("board");
  let skipped = 0;
  let crashed = null;
  try {
    new BoardBinding({ doc, map, api: scene, captureNever: "NEVER", editable: false, onSkipped: (items) => { skipped += items.length; } });
    for (const [key, value] of values) Y.transact(doc, () => map.set(key, value), "remote");
  } catch (error) {
    crashed = String(error);
  }
  const sceneValid = scene.elements.every((e) => elementProblem(e, e.id) === null);
  console.log(JSON.stringify({ problems, crashed, sceneValid, drawn: scene.elements.length, skipped }));
}
