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
} else {
  problems = data.map(([key, value]) => elementProblem(decode(value), key));
}
console.log(JSON.stringify(problems));
