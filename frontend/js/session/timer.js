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

// The moments the candidate is warned before time is up (ms left), announced once each as the
// clock crosses them: never every second (a screen reader would hear nothing else).
export const WARNING_MARKS = [5 * 60_000, 60_000];

/** The marks a clock crossed going from `before` ms left to `after` (both > 0 to count). */
export function marksCrossed(before, after, marks = WARNING_MARKS) {
  return marks.filter((mark) => before > mark && after <= mark && after > 0);
}

export function warningText(mark) {
  const minutes = Math.round(mark / 60_000);
  return minutes === 1 ? "1 minute left." : `${minutes} minutes left.`;
}

export class Countdown {
  constructor(element, { serverNow, onExpire, onWarning }) {
    this.element = element;
    this.skew = serverNow ? Date.parse(serverNow) - Date.now() : 0;
    this.deadline = null;
    this.onExpire = onExpire;
    this.onWarning = onWarning;
    this.expired = false;
    this.interval = null;
    this.lastLeft = null;
  }

  now() {
    return Date.now() + this.skew;
  }

  /** Starts (or moves) the countdown to an ISO deadline. */
  start(deadlineIso) {
    this.deadline = Date.parse(deadlineIso);
    this.element.dataset.deadline = deadlineIso;
    this.lastLeft = null; // a moved deadline (an extension) warns again as it is reached
    clearInterval(this.interval);
    this.tick();
    this.interval = setInterval(() => this.tick(), 250);
  }

  tick() {
    if (this.deadline === null) return;
    const left = this.deadline - this.now();
    this.element.textContent = formatLeft(left);
    if (this.lastLeft !== null) {
      for (const mark of marksCrossed(this.lastLeft, left)) this.onWarning?.(mark);
    }
    this.lastLeft = left;
    this.element.classList.toggle("urgent", left < 60_000);
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
