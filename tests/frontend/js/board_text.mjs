// The board as text (frontend/js/session/design.js boardText), run by
// tests/frontend/test_board_text.py with node: shapes with their labels, arrows with the shapes
// they join, deleted elements left out (issue 40.3). Prints one JSON line of findings.
const [, , frontend] = process.argv;
const { boardText } = await import(`${frontend}/js/session/design.js`);

const elements = [
  { id: "a", type: "rectangle", boundElements: [{ type: "text", id: "ta" }] },
  { id: "ta", type: "text", text: "API gateway", containerId: "a" },
  { id: "b", type: "ellipse" },
  { id: "tb", type: "text", text: "GPU pool ", containerId: "b" },
  { id: "c", type: "arrow", startBinding: { elementId: "a" }, endBinding: { elementId: "b" } },
  { id: "d", type: "text", text: "1k QPS" },
  { id: "e", type: "diamond" },
  { id: "f", type: "arrow", startBinding: { elementId: "e" }, endBinding: null },
  { id: "g", type: "rectangle", isDeleted: true },
];
const lines = boardText(elements);
const findings = {
  lines: JSON.stringify(lines) === JSON.stringify([
    "Box: “API gateway”",
    "Ellipse: “GPU pool”",
    "Arrow from “API gateway” to “GPU pool”",
    "Text: “1k QPS”",
    "Diamond",
    "Arrow from a diamond",
  ]),
  empty: boardText([]).length === 0,
};
if (!findings.lines) console.error(JSON.stringify(lines));
console.log(JSON.stringify(findings));
