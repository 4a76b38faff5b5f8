// The countdown. The deadline is the server's; the page only corrects for its own clock being
// off (the server's "now" at render time against the browser's), so a reload shows the same
// time left, and changing the computer's clock changes nothing on the server.

function pad(number) {
  return String(number).padStart(2, "0");
}

export function formatLeft(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return hours ? `${hours}:${pad(minutes)}:${pad(seconds)}` : `${pad(minutes)}:${pad(seconds)}`;
}

// The moments a screen reader is told the time left (issue 40.3): never every second.
export const ANNOUNCED_MARKS = [
  [5 * 60_000, "5 minutes left."],
  [60_000, "1 minute left."],
];

export class Countdown {
  /** `announcer`: a polite live region that hears only the 5 and 1 minute marks (the timer
   *  itself is aria-live="off"). */
  constructor(element, { serverNow, onExpire, announcer = null }) {
    this.element = element;
    this.announcer = announcer;
    // The marks still ahead; those already passed when the countdown (re)starts are not said.
    this.marksAhead = null;
    this.skew = serverNow ? Date.parse(serverNow) - Date.now() : 0;
    this.deadline = null;
    this.onExpire = onExpire;
    this.expired = false;
    this.interval = null;
  }

  now() {
    return Date.now() + this.skew;
  }

  /** Starts (or moves) the countdown to an ISO deadline. */
  start(deadlineIso) {
    this.deadline = Date.parse(deadlineIso);
    this.element.dataset.deadline = deadlineIso;
    // A new deadline (more time granted) re-arms the marks it lies before.
    const left = this.deadline - this.now();
    this.marksAhead = ANNOUNCED_MARKS.filter(([at]) => left > at);
    clearInterval(this.interval);
    this.tick();
    this.interval = setInterval(() => this.tick(), 250);
  }

  tick() {
    if (this.deadline === null) return;
    const left = this.deadline - this.now();
    this.element.textContent = formatLeft(left);
    this.element.classList.toggle("urgent", left < 60_000);
    // The last five minutes look different too: the warning is not for screen readers only.
    this.element.classList.toggle("warning", left < 5 * 60_000);
    const passed = (this.marksAhead || []).filter(([at]) => left <= at);
    if (passed.length) {
      this.marksAhead = this.marksAhead.filter(([at]) => left > at);
      // Only the nearest mark is said, should a sleeping tab wake past both.
      if (left > 0 && this.announcer) this.announcer.textContent = passed[passed.length - 1][1];
    }
    if (left <= 0 && !this.expired) {
      this.expired = true;
      this.element.dataset.expired = "true";
      this.onExpire?.();
    }
  }

  stop(text) {
    clearInterval(this.interval);
    if (text !== undefined) this.element.textContent = text;
  }
}
