// The replay's story of the board (issue 38, 4): its edits grouped into bursts. Pure
// functions, no DOM and no Yjs, so node runs them as they are (tests/frontend/js/board_bursts.mjs).
//
// An edit is one stored update that touched the board: {t, author, changes: [{id, before,
// after}]}, each side an element's summary (elementSummary) or null where the element was not
// in the map. A burst is a run of edits by one person with no pause of BURST_GAP_MS or more:
// the replay's timeline lists one entry per burst, saying what it left added, moved, changed
// or removed (net: a shape drawn and moved in one burst counts as added), and who; the
// slider and the stroke buttons still reach every single edit.

export const BURST_GAP_MS = 15000;

/** What a burst needs of one element value of the board map: is it on the board (live), where
 * is it, how big, which version. `live(value)` says whether the board shows it. */
export function elementSummary(value, live) {
  if (!value || typeof value !== "object") return null;
  return {
    live: Boolean(live),
    x: value.x,
    y: value.y,
    width: value.width,
    height: value.height,
    version: value.version,
  };
}

/** Group `edits` (in time order) into bursts: [{t (first edit), end (last edit), author,
 * edits (how many), added, moved, changed, removed}]. */
export function boardBursts(edits, gapMs = BURST_GAP_MS) {
  const open = [];
  for (const edit of edits) {
    if (!edit.changes || edit.changes.length === 0) continue;
    let burst = open[open.length - 1];
    if (!burst || burst.author !== edit.author || edit.t - burst.end >= gapMs) {
      burst = { t: edit.t, end: edit.t, author: edit.author, edits: 0, first: new Map(), last: new Map() };
      open.push(burst);
    }
    burst.end = edit.t;
    burst.edits += 1;
    for (const { id, before, after } of edit.changes) {
      if (!burst.first.has(id)) burst.first.set(id, before);
      burst.last.set(id, after);
    }
  }
  return open.map(({ first, last, ...burst }) => ({ ...burst, ...netChange(first, last) }));
}

const moved = (a, b) => a.x !== b.x || a.y !== b.y;
const resized = (a, b) => a.width !== b.width || a.height !== b.height;

/** What a burst left: each element it touched compared as it was before and after it. */
function netChange(first, last) {
  const counts = { added: 0, moved: 0, changed: 0, removed: 0 };
  for (const [id, before] of first) {
    const after = last.get(id);
    const was = Boolean(before?.live);
    const is = Boolean(after?.live);
    if (!was && is) counts.added += 1;
    else if (was && !is) counts.removed += 1;
    else if (was && is) {
      if (moved(before, after) && !resized(before, after)) counts.moved += 1;
      else if (moved(before, after) || resized(before, after) || before.version !== after.version) {
        counts.changed += 1;
      }
    }
  }
  return counts;
}

/** The burst as its timeline entry says it: "Board: added 3, moved 2, removed 1 — by cand". */
export function burstLabel(burst) {
  const parts = ["added", "moved", "changed", "removed"]
    .filter((what) => burst[what] > 0)
    .map((what) => `${what} ${burst[what]}`);
  const what = parts.length ? parts.join(", ") : "drew and erased";
  return `Board: ${what}${burst.author ? ` — by ${burst.author}` : ""}`;
}
