// The replay's bursts (frontend/js/session/bursts.js), run by tests/frontend/test_board_bursts.py
// with node: edits by one person with pauses under the gap are one burst, a new person or a
// long pause starts another, and each burst says what it left (added, moved, changed,
// removed, net of what it did inside itself). Prints one JSON line of findings.
const [, , frontend] = process.argv;
const { BURST_GAP_MS, boardBursts, burstLabel } = await import(`${frontend}/js/session/bursts.js`);

const at = (x, y, { live = true, version = 1, width = 100, height = 50 } = {}) =>
  ({ live, x, y, width, height, version });
const edit = (t, author, changes) => ({ t, author, changes });
const change = (id, before, after) => ({ id, before, after });

const edits = [
  // cand draws three shapes, a second apart: one burst
  edit(1000, "cand", [change("a", null, at(0, 0))]),
  edit(2000, "cand", [change("b", null, at(200, 0))]),
  edit(3000, "cand", [change("c", null, at(400, 0))]),
  // and moves one of them straight after: still the same burst, which then says "added 3"
  edit(4000, "cand", [change("c", at(400, 0), at(420, 10, { version: 2 }))]),
  // the interviewer adds one: a new burst (another person)
  edit(5000, "int", [change("d", null, at(0, 300))]),
  // cand, after a long pause: moves two, resizes one, removes one
  edit(5000 + BURST_GAP_MS + 1000, "cand", [
    change("a", at(0, 0), at(10, 10, { version: 2 })),
    change("b", at(200, 0), at(210, 0, { version: 2 })),
  ]),
  edit(5000 + BURST_GAP_MS + 3000, "cand", [
    change("d", at(0, 300), at(0, 300, { width: 300, version: 2 })),
    change("c", at(420, 10, { version: 2 }), at(420, 10, { live: false, version: 3 })),
  ]),
  // an update that touched nothing on the board is no edit
  edit(5000 + BURST_GAP_MS + 4000, "cand", []),
  // drawn and erased in one burst: nothing left
  edit(60000, "int", [change("e", null, at(0, 0))]),
  edit(61000, "int", [change("e", at(0, 0), at(0, 0, { live: false, version: 2 }))]),
];
const bursts = boardBursts(edits);
const findings = {
  three_bursts_and_one_more: bursts.length === 4,
  first_is_one_burst: bursts[0].edits === 4 && bursts[0].t === 1000 && bursts[0].end === 4000,
  first_net_added_three: bursts[0].added === 3 && bursts[0].moved === 0,
  another_person_starts_a_burst: bursts[1].author === "int" && bursts[1].added === 1,
  a_pause_starts_a_burst: bursts[2].author === "cand" && bursts[2].edits === 2,
  moved_changed_removed:
    bursts[2].moved === 2 && bursts[2].changed === 1 && bursts[2].removed === 1 && bursts[2].added === 0,
  label_says_what_and_who: burstLabel(bursts[2]) === "Board: moved 2, changed 1, removed 1 — by cand",
  label_of_added: burstLabel(bursts[0]) === "Board: added 3 — by cand",
  drawn_and_erased: burstLabel(bursts[3]) === "Board: drew and erased — by int",
  gap_is_a_parameter: boardBursts(edits, 500).length === 9,
};
console.log(JSON.stringify(findings));
