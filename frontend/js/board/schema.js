// What a board element may be: the twin of interviews/boardschema.py (read its docstring for
// the rules). The same rules and the same messages, kept equal by the shared vectors of
// tests/fixtures/board_elements.json that both test suites read: the server refuses an update
// that would store an element failing them, and the page never hands one to Excalidraw (nor
// writes one into the document).

export const TYPES = ["rectangle", "ellipse", "diamond", "line", "arrow", "freedraw", "text", "frame"];
export const MAX_KEYS = 64;
export const MAX_ID_CHARS = 128;
export const MAX_STRING_CHARS = 256;
export const MAX_LINK_CHARS = 2048;
export const MAX_TEXT_CHARS = 20000;
export const MAX_POINTS = 20000;
export const MAX_GROUPS = 64;
export const MAX_BOUND = 1000;
export const COORD_LIMIT = 1e7;
export const MAX_INTEGER = 2 ** 53;
export const MAX_FONT_SIZE = 10000;

const FILL_STYLES = ["hachure", "cross-hatch", "solid", "zigzag"];
const STROKE_STYLES = ["solid", "dashed", "dotted"];
const TEXT_ALIGNS = ["left", "center", "right"];
const VERTICAL_ALIGNS = ["top", "middle", "bottom"];
const ARROWHEADS = ["arrow", "bar", "dot", "circle", "circle_outline", "triangle",
  "triangle_outline", "diamond", "diamond_outline", "crowfoot_one", "crowfoot_many",
  "crowfoot_one_or_many"];
const BOUND_TYPES = ["arrow", "text"];

// ---------------------------------------------------------------- value checks

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v) &&
  (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
// A missing field and an explicit undefined (which JSON cannot carry) are the same.
const present = (o, k) => has(o, k) && o[k] !== undefined;
const isNull = (v) => v === null || v === undefined;
const finite = (v, limit = COORD_LIMIT) => typeof v === "number" && Number.isFinite(v) && Math.abs(v) <= limit;
const integer = (v, low = -MAX_INTEGER) => finite(v, MAX_INTEGER) && v >= low && Number.isInteger(v);
const string = (v, most, least = 0) => typeof v === "string" && v.length >= least && v.length <= most;
const point = (v) => Array.isArray(v) && v.length === 2 && finite(v[0]) && finite(v[1]);
const oneOf = (options) => (v) => typeof v === "string" && options.includes(v);
const nullable = (check) => (v) => isNull(v) || check(v);

const roundness = (v) => {
  if (isNull(v)) return true;
  if (!isObject(v) || !integer(v.type, 0)) return false;
  return !present(v, "value") || isNull(v.value) || finite(v.value);
};
const boundElements = (v) => isNull(v) || (Array.isArray(v) && v.length <= MAX_BOUND &&
  v.every((item) => isObject(item) && string(item.id, MAX_ID_CHARS, 1) && BOUND_TYPES.includes(item.type)));
const binding = (v) => {
  if (isNull(v)) return true;
  if (!isObject(v) || !string(v.elementId, MAX_ID_CHARS, 1)) return false;
  for (const key of ["focus", "gap"]) if (present(v, key) && !finite(v[key])) return false;
  return !present(v, "fixedPoint") || isNull(v.fixedPoint) || point(v.fixedPoint);
};
const groups = (v) => Array.isArray(v) && v.length <= MAX_GROUPS && v.every((item) => string(item, MAX_ID_CHARS, 1));
const points = (v) => Array.isArray(v) && v.length <= MAX_POINTS && v.every(point);
const pressures = (v) => Array.isArray(v) && v.length <= MAX_POINTS && v.every((item) => finite(item, 1e3));

const COORD = [(v) => finite(v), "must be a finite number"];
const STRING = [(v) => string(v, MAX_STRING_CHARS), `must be a string of at most ${MAX_STRING_CHARS} characters`];
const BOOL = [(v) => typeof v === "boolean", "must be true or false"];
const INT = [(v) => integer(v), "must be an integer"];
const ID_OR_NULL = [nullable((v) => string(v, MAX_ID_CHARS, 1)), `must be null or a string of 1 to ${MAX_ID_CHARS} characters`];
const TEXT = [(v) => string(v, MAX_TEXT_CHARS), `must be a string of at most ${MAX_TEXT_CHARS} characters`];
const POINTS = [points, `must be a list of at most ${MAX_POINTS} [x, y] pairs of finite numbers`];
const ARROWHEAD = [nullable(oneOf(ARROWHEADS)), "must be null or a known arrowhead"];

const COMMON_FIELDS = {
  x: COORD, y: COORD, width: COORD, height: COORD, angle: COORD,
  strokeColor: STRING, backgroundColor: STRING,
  fillStyle: [oneOf(FILL_STYLES), `must be one of ${FILL_STYLES.join(", ")}`],
  strokeWidth: [(v) => finite(v, 1000), "must be a number from -1000 to 1000"],
  strokeStyle: [oneOf(STROKE_STYLES), `must be one of ${STROKE_STYLES.join(", ")}`],
  roughness: [(v) => finite(v, 1000), "must be a number from -1000 to 1000"],
  opacity: [(v) => finite(v, 100) && v >= 0, "must be a number from 0 to 100"],
  seed: INT, versionNonce: INT,
  index: [nullable((v) => string(v, MAX_STRING_CHARS)), `must be null or a string of at most ${MAX_STRING_CHARS} characters`],
  isDeleted: BOOL, locked: BOOL,
  groupIds: [groups, `must be a list of at most ${MAX_GROUPS} ids`],
  frameId: ID_OR_NULL,
  roundness: [roundness, "must be null or {type, value}"],
  boundElements: [boundElements, `must be null or a list of at most ${MAX_BOUND} {id, type} (type arrow or text)`],
  updated: [(v) => finite(v, MAX_INTEGER), "must be a finite number"],
  link: [nullable((v) => string(v, MAX_LINK_CHARS)), `must be null or a string of at most ${MAX_LINK_CHARS} characters`],
  customData: [nullable(isObject), "must be null or an object"],
};
const LINEAR_FIELDS = {
  points: POINTS,
  lastCommittedPoint: [nullable(point), "must be null or an [x, y] pair"],
  startBinding: [binding, "must be null or a binding {elementId, focus, gap}"],
  endBinding: [binding, "must be null or a binding {elementId, focus, gap}"],
  startArrowhead: ARROWHEAD, endArrowhead: ARROWHEAD,
  elbowed: BOOL,
};
const FREEDRAW_FIELDS = {
  points: POINTS,
  pressures: [pressures, `must be a list of at most ${MAX_POINTS} finite numbers`],
  simulatePressure: BOOL,
  lastCommittedPoint: [nullable(point), "must be null or an [x, y] pair"],
};
const TEXT_FIELDS = {
  text: TEXT, originalText: TEXT,
  fontSize: [(v) => finite(v, MAX_FONT_SIZE) && v > 0, `must be a number above 0 and at most ${MAX_FONT_SIZE}`],
  fontFamily: INT,
  textAlign: [oneOf(TEXT_ALIGNS), `must be one of ${TEXT_ALIGNS.join(", ")}`],
  verticalAlign: [oneOf(VERTICAL_ALIGNS), `must be one of ${VERTICAL_ALIGNS.join(", ")}`],
  containerId: ID_OR_NULL,
  autoResize: BOOL,
  lineHeight: [(v) => finite(v, 100) && v > 0, "must be a number above 0 and at most 100"],
  baseline: COORD,
};
const FRAME_FIELDS = {
  name: [nullable((v) => string(v, MAX_STRING_CHARS)), `must be null or a string of at most ${MAX_STRING_CHARS} characters`],
};
const TYPE_FIELDS = { line: LINEAR_FIELDS, arrow: LINEAR_FIELDS, freedraw: FREEDRAW_FIELDS, text: TEXT_FIELDS, frame: FRAME_FIELDS };
const REQUIRED = { line: ["points"], arrow: ["points"], freedraw: ["points"], text: ["text"] };

class Invalid extends Error {
  constructor(field, what) {
    super(`${field} ${what}`);
  }
}

// ---------------------------------------------------------------- the element

function check(key, value) {
  if (!isObject(value)) throw new Invalid("the value", "must be an object (an Excalidraw element)");
  if (Object.keys(value).length > MAX_KEYS) throw new Invalid("the element", `must have at most ${MAX_KEYS} fields`);
  const id = value.id;
  if (!string(id, MAX_ID_CHARS, 1)) throw new Invalid("id", `must be a string of 1 to ${MAX_ID_CHARS} characters`);
  if (key !== undefined && key !== null && id !== key) throw new Invalid("id", "must be the element's key in the board");
  const kind = value.type;
  if (!TYPES.includes(kind)) throw new Invalid("type", `must be one of ${TYPES.join(", ")}`);
  if (!integer(value.version, 0)) throw new Invalid("version", "must be an integer from 0");
  for (const field of REQUIRED[kind] ?? []) {
    if (!present(value, field) || value[field] === null) throw new Invalid(field, `is missing (every ${kind} has one)`);
  }
  const fields = { ...COMMON_FIELDS, ...(TYPE_FIELDS[kind] ?? {}) };
  for (const [field, [ok, what]] of Object.entries(fields)) {
    if (present(value, field) && !ok(value[field])) throw new Invalid(field, what);
  }
}

function label(key, value) {
  const id = isObject(value) ? value.id : undefined;
  const name = typeof id === "string" ? id : typeof key === "string" ? key : "";
  const kind = isObject(value) ? value.type : undefined;
  const shown = JSON.stringify(name.slice(0, 40));
  return typeof kind === "string" && /^[A-Za-z_-]{1,40}$/.test(kind) ? `${shown} (${kind})` : shown;
}

/** null when `value` is an element the board may hold (under `key`, when given), else a
 * sentence a person can read: which element, which field, what it must be. */
export function elementProblem(value, key = undefined) {
  try {
    check(key, value);
  } catch (problem) {
    if (!(problem instanceof Invalid)) throw problem;
    return `The board element ${label(key, value)} cannot be drawn: ${problem.message}.`;
  }
  return null;
}

export const isValidElement = (value, key = undefined) => elementProblem(value, key) === null;
