// The session clock's warnings (frontend/js/session/timer.js), run by
// tests/frontend/test_timer_marks.py with node: the 5 and 1 minute marks are each said once as
// the clock crosses them, never on every tick, never at a load already past them, and again
// after an extension moves the deadline back above them. Prints one JSON line of findings.
const [, , frontend] = process.argv;
const { Countdown, marksCrossed, warningText } = await import(`${frontend}/js/session/timer.js`);

const findings = {};
findings.crossing_each_mark_once =
  JSON.stringify(marksCrossed(301_000, 299_000)) === "[300000]" &&
  JSON.stringify(marksCrossed(299_000, 298_000)) === "[]" &&
  JSON.stringify(marksCrossed(61_000, 59_000)) === "[60000]";
findings.both_marks_in_one_jump = JSON.stringify(marksCrossed(400_000, 30_000)) === "[300000,60000]";
findings.nothing_at_the_end = JSON.stringify(marksCrossed(1_000, -500)) === "[]";
findings.words = warningText(300_000) === "5 minutes left." && warningText(60_000) === "1 minute left.";

// A countdown driven by a fake clock, one tick per simulated second.
let fakeNow = 0;
const element = { textContent: "", dataset: {}, classList: { toggle() {} } };
const said = [];
const realNow = Date.now;
Date.now = () => fakeNow;
globalThis.setInterval = () => 0;
globalThis.clearInterval = () => {};
const clock = new Countdown(element, { onWarning: (mark) => said.push(mark) });
clock.start(new Date(6 * 60_000).toISOString()); // 6 minutes left
for (let t = 0; t <= 6 * 60; t += 1) {
  fakeNow = t * 1000;
  clock.tick();
}
findings.six_minutes_say_two_warnings = JSON.stringify(said) === "[300000,60000]";

said.length = 0;
fakeNow = 0;
const late = new Countdown(element, { onWarning: (mark) => said.push(mark) });
late.start(new Date(4 * 60_000).toISOString()); // loaded with 4 minutes left
for (let t = 0; t <= 4 * 60; t += 1) {
  fakeNow = t * 1000;
  late.tick();
}
findings.a_late_load_says_only_what_is_still_ahead = JSON.stringify(said) === "[60000]";

said.length = 0;
fakeNow = 0;
const extended = new Countdown(element, { onWarning: (mark) => said.push(mark) });
extended.start(new Date(2 * 60_000).toISOString());
for (let t = 0; t <= 90; t += 1) {
  fakeNow = t * 1000;
  extended.tick();
}
// Past the 1 minute mark, the interviewer adds 10 minutes: both marks are ahead again.
extended.start(new Date(90_000 + 10 * 60_000 + 30_000).toISOString());
for (let t = 91; t <= 12 * 60; t += 1) {
  fakeNow = t * 1000;
  extended.tick();
}
findings.an_extension_warns_again = JSON.stringify(said) === "[60000,300000,60000]";
Date.now = realNow;
console.log(JSON.stringify(findings));
