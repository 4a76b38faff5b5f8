// The whiteboard's Yjs binding: Excalidraw's scene <-> the Y.Map "board" of the session's one
// Y.Doc (interviews/collab.py BOARD_NAME; the code editor binds Y.Text "code" of the same doc).
//
// The map holds element id -> the whole element as a plain JSON object, set again each time
// the element's `version` grows; a deleted element stays with `isDeleted: true` (Excalidraw's
// own tombstone), so a late joiner learns about deletions too.
//
// - Local edits: Excalidraw's onChange fires on every pointer move; the binding sets, at most
//   every FLUSH_MS and in one transaction, each element whose version is above the map's.
// - Remote edits: the map's observer takes each changed element whose version is above the
//   scene's (or equal with another versionNonce: two people changed it at once and Yjs chose
//   one value for everybody) and hands the scene to Excalidraw without an undo entry. The
//   scene then has the map's versions, so onChange finds nothing to send: nothing is echoed.
//
// - Size: one flush is written in as many transactions as it takes for each update to stay
//   under the server's message limit (a 3,000-element paste goes out in several messages),
//   and never past the document's bounds (its live elements, its encoded bytes: the server's
//   own rules, interviews/docsize.py). What does not fit stays on this screen only (it is
//   tried again at each flush, so it goes out once there is room) and `onHeld` tells the page
//   how many such elements there are; later edits within the bounds still go out. An element
//   too large for one message by itself is kept on the screen the same way.
//
// The binding never imports yjs itself: the doc and map belong to the session bundle's copy,
// and a second copy of yjs in the page would break its constructor checks.
//
// Only elements the board's schema accepts (schema.js, the twin of the server's
// interviews/boardschema.py) go either way: one the map holds that fails it (a board stored
// before the server checked, a hostile page) is never handed to Excalidraw, and one of the
// scene's that fails it (a tool the board does not offer) is never written into the map, which
// the server would refuse. Either is reported through `onSkipped` (the page says so at the
// board and logs why), so one bad element never blanks a board.
import { elementProblem } from "./schema.js";

export const BOARD_NAME = "board";
export const FLUSH_MS = 100;
// An element's update is at most about its JSON's size (lib0's encoding of a number can be a
// few bytes longer than its digits): batches are cut at this fraction of the message limit.
export const BATCH_SHARE = 0.5;
// Margin kept under the document's byte bound (the estimate is of the JSON, not the update).
export const BYTES_MARGIN = 1.5;

const jsonBytes = (value) => new TextEncoder().encode(JSON.stringify(value)).length;
const isLive = (value) => isElement(value) && !value.isDeleted;

// Elements are mutated in place by Excalidraw (mutateElement): what goes into the map, and what
// comes out of it into the scene, is a copy, so neither side changes the other behind its back.
const copy = (value) => JSON.parse(JSON.stringify(value));

const hasVersion = (value) =>
  value !== null && typeof value === "object" && Number.isFinite(value.version);
// What the map holds for an element that was sent (a stored value with its version).
const isElement = hasVersion;

// What Excalidraw has on every element of a type, for the fields the schema lets a stored
// element leave out (older boards, elements written by hand): Excalidraw reads them as given.
const BASE_DEFAULTS = {
  x: 0, y: 0, width: 0, height: 0, angle: 0, strokeColor: "#1e1e1e",
  backgroundColor: "transparent", fillStyle: "solid", strokeWidth: 2, strokeStyle: "solid",
  roughness: 1, opacity: 100, groupIds: [], frameId: null, roundness: null, seed: 1,
  versionNonce: 0, isDeleted: false, boundElements: null, updated: 0, link: null, locked: false,
};
const TYPE_DEFAULTS = {
  line: { lastCommittedPoint: null, startBinding: null, endBinding: null, startArrowhead: null, endArrowhead: null },
  arrow: { lastCommittedPoint: null, startBinding: null, endBinding: null, startArrowhead: null, endArrowhead: "arrow", elbowed: false },
  freedraw: { pressures: [], simulatePressure: true, lastCommittedPoint: null },
  text: { fontSize: 20, fontFamily: 5, textAlign: "left", verticalAlign: "top", containerId: null, autoResize: true, lineHeight: 1.25 },
  frame: { name: null },
};

/** A valid element as Excalidraw needs it: a copy, every field it reads present. */
export function drawable(element) {
  const out = { ...BASE_DEFAULTS, ...TYPE_DEFAULTS[element.type], ...copy(element) };
  if (out.type === "text" && typeof out.originalText !== "string") out.originalText = out.text;
  return out;
}

/** The map's elements Excalidraw can draw, as drawable copies, and the problems of the rest
 * ({id, problem}), in drawing order. */
export function checkedElements(entries) {
  const elements = [];
  const skipped = [];
  for (const [key, value] of entries) {
    const problem = elementProblem(value, key);
    if (problem === null) elements.push(drawable(value));
    else skipped.push({ id: key === undefined ? String(value?.id ?? "") : String(key), problem });
  }
  return { elements: drawingOrder(elements), skipped };
}

/** Whether the map's `remote` element should replace the scene's `local` one. */
export function remoteWins(local, remote) {
  if (!local) return true;
  if (remote.version !== local.version) return remote.version > local.version;
  return remote.versionNonce !== local.versionNonce;
}

/** Drawing order: the fractional `index`, then the id (what the server's board_from_updates
 * uses, by code point), so every browser stacks the same elements the same way. */
export function drawingOrder(elements) {
  const key = (e) => String(e.index ?? "");
  return [...elements].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka !== kb) return ka < kb ? -1 : 1;
    if (a.id === b.id) return 0;
    return a.id < b.id ? -1 : 1;
  });
}

const mapEntries = (map) => {
  const entries = [];
  map.forEach((value, key) => entries.push([key, value]));
  return entries;
};

/** Every element in the map Excalidraw can draw (deleted ones included), in drawing order,
 * as copies; `onSkipped` hears about the others. */
export function mapElements(map, onSkipped = () => {}) {
  const { elements, skipped } = checkedElements(mapEntries(map));
  if (skipped.length) onSkipped(skipped);
  return elements;
}

export class BoardBinding {
  /**
   * @param {{doc: object, map: object, api: object, captureNever: unknown, editable?: boolean}} options
   *   doc, map: the session's Y.Doc and its Y.Map "board"; api: the excalidrawAPI;
   *   captureNever: Excalidraw's CaptureUpdateAction.NEVER (remote edits are not undoable).
   */
  constructor({
    doc,
    map,
    api,
    captureNever,
    editable = true,
    onFirstContent = () => {},
    onSkipped = () => {},
    limits = {},
    measure = null,
    onHeld = () => {},
    settle = null,
  }) {
    this.doc = doc;
    // The server's bounds (the page's data attributes); Infinity: none known.
    this.maxMessageBytes = limits.maxMessageBytes ?? Infinity;
    this.maxDocBytes = limits.maxDocBytes ?? Infinity;
    this.maxElements = limits.maxElements ?? Infinity;
    // measure(): the document's encoded size now (Y.encodeStateAsUpdate's length), called
    // only near the byte bound; between measures the size is counted up by what was written.
    this.measure = measure;
    this.docBytes = measure ? measure() : 0;
    this.onDocUpdate = (update) => {
      this.docBytes += update.length; // an upper bound: merging never makes it longer
    };
    doc.on("update", this.onDocUpdate);
    this.onHeld = onHeld;
    this.held = 0; // live elements only on this screen (the board was full)
    this.tooLarge = 0; // and those each too large for one message
    this.map = map;
    this.api = api;
    this.captureNever = captureNever;
    this.editable = editable;
    this.timer = null;
    // Called once, when the board first has something to show (a late joiner's view is then
    // framed on what was drawn before it came).
    this.onFirstContent = onFirstContent;
    // Told each element that is skipped ([{id, problem, local}]), once per id and version.
    this.onSkipped = onSkipped;
    this.reported = new Map(); // id -> the version (or problem) last reported
    // settle: remote changes are taken into the scene at once (null), or, from `settle.few`
    // elements on, once they have stopped arriving for `settle.ms` (at most `settle.maxMs`
    // after the first): a big board comes in several messages, and one scene update for all
    // of them is far cheaper than one each.
    this.settle = settle;
    this.remoteKeys = new Set();
    this.remoteTimer = null;
    this.remoteSince = 0;
    this.onRemote = (event, transaction) => {
      if (transaction.origin === this) return; // our own flush
      // A small change while nothing is gathering (a shape drawn by someone) shows at once.
      if (!this.settle || (this.remoteTimer === null && event.keysChanged.size < this.settle.few)) {
        this.applyRemote([...event.keysChanged]);
        return;
      }
      event.keysChanged.forEach((key) => this.remoteKeys.add(key));
      const now = Date.now();
      if (this.remoteTimer === null) this.remoteSince = now;
      else clearTimeout(this.remoteTimer);
      const wait = Math.max(0, Math.min(this.settle.ms, this.remoteSince + this.settle.maxMs - now));
      this.remoteTimer = setTimeout(() => this.applySettled(), wait);
    };
    map.observe(this.onRemote);
    // What the map already has (a reload, a late joiner); the rest arrives through onRemote.
    this.applyRemote([...map.keys()]);
  }

  /** Excalidraw's onChange: schedule a flush (throttled, trailing). */
  changed() {
    if (!this.editable || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, FLUSH_MS);
  }

  /** Send every element whose version grew, in transactions whose updates each fit in one
   * message, as far as the document's bounds allow; returns how many were written. */
  flush() {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (!this.editable) return 0;
    const unsharable = [];
    const grown = [];
    for (const element of this.api.getSceneElementsIncludingDeleted()) {
      const stored = this.map.get(element.id);
      // A shape deleted before it was ever sent: nobody needs to hear of it.
      if (!isElement(stored) && element.isDeleted) continue;
      if (hasVersion(stored) && element.version <= stored.version) continue;
      // Only what grew is checked (a whole check of every element on each flush would cost
      // the points of every stroke on the board ten times a second).
      const value = copy(element);
      const problem = elementProblem(value, element.id);
      if (problem === null) {
        this.reported.delete(element.id);
        grown.push(value);
      } else {
        unsharable.push({ id: element.id, problem, local: true, version: element.version });
      }
    }
    this.report(unsharable);
    if (grown.length === 0) return this.setHeld(0, 0);
    let live = 0;
    this.map.forEach((value) => {
      if (isLive(value)) live += 1;
    });
    // What frees room or keeps it the same goes first; a new live element takes a place.
    const takesPlace = (element) => !element.isDeleted && !isLive(this.map.get(element.id));
    const ordered = [...grown.filter((e) => !takesPlace(e)), ...grown.filter(takesPlace)];
    const batchBytes = this.maxMessageBytes * BATCH_SHARE;
    let batch = [];
    let size = 0;
    let growth = 0; // what this flush adds to the document so far (JSON bytes)
    let written = 0;
    let held = 0;
    let tooLarge = 0;
    const write = () => {
      if (batch.length === 0) return;
      const elements = batch;
      this.doc.transact(() => {
        for (const element of elements) this.map.set(element.id, copy(element));
      }, this);
      written += elements.length;
      batch = [];
      size = 0;
      growth = 0; // now counted in docBytes (the update event)
    };
    for (const element of ordered) {
      const bytes = jsonBytes(element);
      if (bytes > batchBytes) {
        // One element too large for a message by itself (a huge text or drawing): it stays
        // on this screen; sending it would close the socket.
        if (!element.isDeleted) tooLarge += 1;
        continue;
      }
      const stored = this.map.get(element.id);
      const places = takesPlace(element) ? 1 : element.isDeleted && isLive(stored) ? -1 : 0;
      if (places > 0 && live + 1 > this.maxElements) {
        if (!element.isDeleted) held += 1;
        continue;
      }
      // A new value replaces the old one (whose content the document then drops): only what
      // it adds counts against the byte bound, so deleting always fits.
      const grows = isElement(stored) ? Math.max(0, bytes - jsonBytes(stored)) : bytes;
      if (grows > 0 && !this.fitsBytes(growth + grows)) {
        if (!element.isDeleted) held += 1;
        continue;
      }
      if (batch.length > 0 && size + bytes > batchBytes) write();
      batch.push(element);
      size += bytes;
      growth += grows;
      live += places;
    }
    write();
    this.setHeld(held, tooLarge);
    return written;
  }

  /** Whether `bytes` more (of JSON) keep the document under its byte bound, with a margin. */
  fitsBytes(bytes) {
    if (this.maxDocBytes === Infinity) return true;
    const room = (docBytes) => docBytes + bytes * BYTES_MARGIN <= this.maxDocBytes;
    if (room(this.docBytes)) return true;
    if (this.measure) this.docBytes = this.measure();
    return room(this.docBytes);
  }

  /** onHeld(full, tooLarge) when either count changes: live elements only on this screen
   * because the board is full, and because one alone is over the message limit. */
  setHeld(count, tooLarge) {
    if (count !== this.held || tooLarge !== this.tooLarge) {
      this.held = count;
      this.tooLarge = tooLarge;
      this.onHeld(count, tooLarge);
    }
    return 0;
  }

  applyRemote(keys) {
    if (keys.length === 0) return;
    const scene = this.api.getSceneElementsIncludingDeleted();
    const byId = new Map(scene.map((element) => [element.id, element]));
    let changed = false;
    let localAhead = false;
    const skipped = [];
    for (const key of keys) {
      const remote = this.map.get(key);
      if (remote === undefined) continue; // removed from the map: the scene keeps its own
      const problem = elementProblem(remote, key);
      if (problem !== null) {
        skipped.push({ id: String(key), problem, local: false, version: problem });
        continue;
      }
      if (this.reported.has(key)) this.reported.delete(key); // a good version came
      const local = byId.get(key);
      if (remoteWins(local, remote)) {
        byId.set(key, drawable(remote));
        changed = true;
      } else if (local.version > remote.version) {
        localAhead = true; // ours is newer: it goes out with the next flush
      }
    }
    if (changed) {
      const wasEmpty = !scene.some((element) => !element.isDeleted);
      const elements = drawingOrder([...byId.values()]);
      this.api.updateScene({ elements, captureUpdate: this.captureNever });
      if (wasEmpty && elements.some((element) => !element.isDeleted)) {
        const first = this.onFirstContent;
        this.onFirstContent = () => {};
        first();
      }
    }
    if (localAhead) this.changed();
    this.report(skipped);
  }

  /** Tell `onSkipped` about skipped elements it has not heard of at this version. */
  report(skipped) {
    const fresh = skipped.filter((s) => this.reported.get(s.id) !== s.version);
    for (const s of fresh) this.reported.set(s.id, s.version);
    if (fresh.length) this.onSkipped(fresh.map(({ id, problem, local }) => ({ id, problem, local })));
  }

  /** How many elements are skipped now (those reported and not since replaced). */
  skippedCount() {
    return this.reported.size;
  }

  /** The remote changes gathered while they were arriving (see `settle`). */
  applySettled() {
    if (this.remoteTimer !== null) clearTimeout(this.remoteTimer);
    this.remoteTimer = null;
    const keys = [...this.remoteKeys];
    this.remoteKeys.clear();
    this.applyRemote(keys);
  }

  setEditable(editable) {
    if (this.editable && !editable) this.flush(); // what was drawn before the switch
    this.editable = editable;
  }

  destroy() {
    if (this.remoteTimer !== null) this.applySettled();
    this.flush();
    this.map.unobserve(this.onRemote);
    this.doc.off("update", this.onDocUpdate);
  }
}
