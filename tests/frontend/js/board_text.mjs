// The board as text (frontend/js/session/design.js boardText), run by
// tests/frontend/test_board_text.py with node: shapes with their labels, arrows with the shapes
// they join, deleted elements left out (issue 40.3). Prints one JSON line of findings.
const [, , frontend] = process.argv;
const { boardText } = await import(`${frontend}/js/session/design.js`);

const { readFileSync } = await import("node:fs");
const vectors = JSON.parse(readFileSync(new URL("../../fixtures/board_text.json", import.meta.url)));
const elements = vectors.elements;
const lines = boardText(elements);
const findings = {
  lines: JSON.stringify(lines) === JSON.stringify(vectors.lines),
  empty: boardText([]).length === 0,
};
if (!findings.lines) console.error(JSON.stringify(lines));
console.log(JSON.stringify(findings));
