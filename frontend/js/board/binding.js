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
// The binding never imports yjs itself: the doc and map belong to the session bundle's copy,
// and a second copy of yjs in the page would break its constructor checks.

export const BOARD_NAME = "board";
export const FLUSH_MS = 100;

// Elements are mutated in place by Excalidraw (mutateElement): what goes into the map, and what
// comes out of it into the scene, is a copy, so neither side changes the other behind its back.
const copy = (value) => JSON.parse(JSON.stringify(value));

const isElement = (value) =>
  value !== null && typeof value === "object" && typeof value.id === "string" &&
  Number.isFinite(value.version);

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

/** Every element in the map (deleted ones included), in drawing order, as copies. */
export function mapElements(map) {
  const elements = [];
  map.forEach((value) => {
    if (isElement(value)) elements.push(copy(value));
  });
  return drawingOrder(elements);
}

export class BoardBinding {
  /**
   * @param {{doc: object, map: object, api: object, captureNever: unknown, editable?: boolean}} options
   *   doc, map: the session's Y.Doc and its Y.Map "board"; api: the excalidrawAPI;
   *   captureNever: Excalidraw's CaptureUpdateAction.NEVER (remote edits are not undoable).
   */
  constructor({ doc, map, api, captureNever, editable = true, onFirstContent = () => {} }) {
    this.doc = doc;
    this.map = map;
    this.api = api;
    this.captureNever = captureNever;
    this.editable = editable;
    this.timer = null;
    // Called once, when the board first has something to show (a late joiner's view is then
    // framed on what was drawn before it came).
    this.onFirstContent = onFirstContent;
    this.onRemote = (event, transaction) => {
      if (transaction.origin === this) return; // our own flush
      this.applyRemote([...event.keysChanged]);
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

  /** Send every element whose version grew, in one transaction; returns how many. */
  flush() {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (!this.editable) return 0;
    const grown = this.api.getSceneElementsIncludingDeleted().filter((element) => {
      const stored = this.map.get(element.id);
      return !isElement(stored) || element.version > stored.version;
    });
    if (grown.length === 0) return 0;
    this.doc.transact(() => {
      for (const element of grown) this.map.set(element.id, copy(element));
    }, this);
    return grown.length;
  }

  applyRemote(keys) {
    if (keys.length === 0) return;
    const scene = this.api.getSceneElementsIncludingDeleted();
    const byId = new Map(scene.map((element) => [element.id, element]));
    let changed = false;
    let localAhead = false;
    for (const key of keys) {
      const remote = this.map.get(key);
      if (!isElement(remote)) continue;
      const local = byId.get(key);
      if (remoteWins(local, remote)) {
        byId.set(key, copy(remote));
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
  }

  setEditable(editable) {
    if (this.editable && !editable) this.flush(); // what was drawn before the switch
    this.editable = editable;
  }

  destroy() {
    this.flush();
    this.map.unobserve(this.onRemote);
  }
}
