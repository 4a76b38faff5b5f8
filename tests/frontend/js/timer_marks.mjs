// The session countdown (frontend/js/session/timer.js) with a stand-in clock and elements, run
// by tests/frontend/test_timer_marks.py with node: its live region hears the 5 and 1 minute
// marks once each and nothing else (issue 40.3). Prints one JSON line of findings.
const [, , frontend] = process.argv;
const { Countdown } = await import(`${frontend}/js/session/timer.js`);

function fakeElement() {
  const classes = new Set();
  return {
    textContent: "", dataset: {}, classes,
    classList: { toggle(name, on) { if (on) classes.add(name); else classes.delete(name); } },
  };
}

const said = [];
const announcer = { set textContent(text) { said.push(text); }, get textContent() { return said.at(-1) ?? ""; } };
let clock = 0;
const timer = fakeElement();
const countdown = new Countdown(timer, { announcer });
countdown.now = () => clock;
countdown.start(new Date(10 * 60_000).toISOString());
clearInterval(countdown.interval);

const heard = [];
const looks = {};
for (clock = 0; clock <= 10 * 60_000; clock += 250) {
  countdown.tick();
  heard.push(said.length);
  if (clock === 4 * 60_000) looks.early = [...timer.classes].sort().join(" ");
  if (clock === 6 * 60_000) looks.warned = [...timer.classes].sort().join(" ");
  if (clock === 9.5 * 60_000) looks.urgent = [...timer.classes].sort().join(" ");
}
const findings = {};
// Seen too, not only heard: amber in the last five minutes, red in the last one.
findings.warned_visibly = looks.early === "" && looks.warned === "warning"
  && looks.urgent === "urgent warning";
findings.two_marks_only = JSON.stringify(said) === JSON.stringify(["5 minutes left.", "1 minute left."]);
// Every second changed the timer's text, but the region was written only twice.
findings.not_every_second = heard.at(-1) === 2;

// Opened with 3 minutes left: the 5 minute mark already passed is not said, the 1 minute one is.
said.length = 0;
clock = 0;
const late = new Countdown(fakeElement(), { announcer });
late.now = () => clock;
late.start(new Date(3 * 60_000).toISOString());
clearInterval(late.interval);
for (clock = 0; clock <= 3 * 60_000; clock += 1000) late.tick();
findings.late_page_says_only_what_is_ahead = JSON.stringify(said) === JSON.stringify(["1 minute left."]);

// More time granted after the 1 minute mark: the marks before the new deadline are said again.
said.length = 0;
clock = 0;
const extended = new Countdown(fakeElement(), { announcer });
extended.now = () => clock;
extended.start(new Date(2 * 60_000).toISOString());
clearInterval(extended.interval);
for (clock = 0; clock <= 90_000; clock += 1000) extended.tick();
extended.start(new Date(90_000 + 10 * 60_000).toISOString());
clearInterval(extended.interval);
for (clock = 90_000; clock <= 90_000 + 10 * 60_000; clock += 1000) extended.tick();
findings.extension_rearms = JSON.stringify(said) === JSON.stringify(["1 minute left.", "5 minutes left.", "1 minute left."]);
console.log(JSON.stringify(findings));
