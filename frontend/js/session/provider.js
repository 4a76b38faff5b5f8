// The session document's connection: Yjs over /ws/sessions/<id>/doc/ (the y-sync protocol).
//
// Binary frames carry the protocol (sync step 1/2, updates, awareness, awareness queries);
// text frames from the server carry JSON events: {"type": "ack"} for each update or step 2
// this page sent (the server stored it), and session events (questions, runs, the end).
//
// On every (re)connect the page sends its state vector and answers the server's with what the
// server misses, so whatever was typed while the socket was down is uploaded and merged by
// Yjs without losing a character.
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";

const MSG_SYNC = 0;
const MSG_AWARENESS = 1;
const MSG_QUERY_AWARENESS = 3;

// A document larger than one message: the server answers this page's step 1 with several
// update frames and then an empty step 2 (interviews/docsize.py), so "synced" (the step 2)
// comes after all of it. The other way, this page's answer to the server's step 1 is cut the
// same way when it is too large: its own updates the server misses, grouped under the limit.
// One change that is over the limit by itself is never sent: the provider stops and says so.

// Close codes after which reconnecting cannot help.
export const FATAL_CLOSES = {
  4400: "The server could not read a message from this page. Reload the page.",
  4401: "You are logged out. Log in again to keep working.",
  4403: "You may not change this document.",
  4404: "This session does not exist, or it is not yours.",
  4409: "The board is full: the last change was not saved.",
  4413: "A change was too large to send (it was not saved); undo it and reload the page.",
  4422: "The board refused a change from this page (it was not saved); reload the page.",
};
// What a frame adds around an update (message type, sync type, length), rounded up.
const FRAME_OVERHEAD = 16;
const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 4000, 8000];

function syncFrame(syncType, update) {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MSG_SYNC);
  encoding.writeVarUint(encoder, syncType);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

export class SessionProvider {
  /**
   * @param {{url: string, doc: import("yjs").Doc, awareness: awarenessProtocol.Awareness,
   *          onEvent?: (event: object) => void, onStatus?: (status: string, detail?: string) => void}} options
   */
  constructor({
    url,
    doc,
    awareness,
    onEvent = () => {},
    onStatus = () => {},
    maxMessageBytes = Infinity,
  }) {
    this.url = url;
    // The server's limit on one message (from the page): a bigger change is never sent, so
    // the page neither loses its socket over it nor resends it on every reconnect.
    this.maxMessageBytes = maxMessageBytes;
    this.doc = doc;
    this.awareness = awareness;
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.socket = null;
    this.synced = false;
    this.pending = 0; // updates and step-2 replies sent and not yet acknowledged
    this.waiters = [];
    this.attempt = 0;
    this.timer = null;
    this.stopped = false;
    // This page's own updates until the server has stored them all (synced, nothing pending):
    // what a too-large answer to the server's step 1 is rebuilt from.
    this.local = [];

    this.onDocUpdate = (update, origin) => {
      if (origin === this) return; // Applied from the server: never echoed back.
      this.local.push(update);
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MSG_SYNC);
      syncProtocol.writeUpdate(encoder, update);
      this.sendCounted(encoding.toUint8Array(encoder));
    };
    this.onAwarenessUpdate = ({ added, updated, removed }, origin) => {
      if (origin === this) return;
      this.sendAwareness([...added, ...updated, ...removed]);
    };
    doc.on("update", this.onDocUpdate);
    awareness.on("update", this.onAwarenessUpdate);
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    this.onStatus("connecting");
    const socket = new WebSocket(this.url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.synced = false;
    socket.addEventListener("open", () => {
      this.attempt = 0;
      this.pending = 0; // acks of the old socket will never come; the resync covers them
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MSG_SYNC);
      syncProtocol.writeSyncStep1(encoder, this.doc);
      socket.send(encoding.toUint8Array(encoder));
      if (this.awareness.getLocalState() !== null) this.sendAwareness([this.doc.clientID]);
    });
    socket.addEventListener("message", (message) => this.receive(message.data));
    socket.addEventListener("close", (close) => this.closed(socket, close.code));
  }

  receive(data) {
    if (typeof data === "string") {
      let event;
      try {
        event = JSON.parse(data);
      } catch {
        return;
      }
      if (event.type === "ack" || event.type === "refused") this.acknowledged();
      this.onEvent(event);
      return;
    }
    const decoder = decoding.createDecoder(new Uint8Array(data));
    const type = decoding.readVarUint(decoder);
    if (type === MSG_SYNC) {
      if (decoding.peekVarUint(decoder) === syncProtocol.messageYjsSyncStep1) {
        decoding.readVarUint(decoder);
        this.answerStep1(decoding.readVarUint8Array(decoder));
        return;
      }
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MSG_SYNC);
      const syncType = syncProtocol.readSyncMessage(decoder, encoder, this.doc, this);
      if (syncType === syncProtocol.messageYjsSyncStep2 && !this.synced) {
        this.synced = true;
        this.onStatus("synced");
        if (this.pending === 0) this.releaseWaiters(true);
      }
      // A step 1 from the server is answered with a step 2: what the server misses.
      if (encoding.length(encoder) > 1) this.sendCounted(encoding.toUint8Array(encoder));
    } else if (type === MSG_AWARENESS) {
      awarenessProtocol.applyAwarenessUpdate(
        this.awareness,
        decoding.readVarUint8Array(decoder),
        this,
      );
    } else if (type === MSG_QUERY_AWARENESS) {
      this.sendAwareness([this.doc.clientID]);
    }
  }

  /** The server's step 1: what it misses, as one step 2, or (too large for one message) as
   * this page's own updates that it misses, grouped into update frames under the limit. */
  answerStep1(stateVector) {
    const missing = Y.encodeStateAsUpdate(this.doc, stateVector);
    const step2 = syncFrame(syncProtocol.messageYjsSyncStep2, missing);
    if (step2.length <= this.maxMessageBytes) {
      this.sendCounted(step2);
      return;
    }
    const budget = this.maxMessageBytes - FRAME_OVERHEAD;
    let group = [];
    let size = 0;
    const emit = () => {
      if (group.length === 0) return;
      const merged = group.length > 1 ? Y.mergeUpdates(group) : group[0];
      for (const piece of merged.length <= budget ? [merged] : group) {
        this.sendCounted(syncFrame(syncProtocol.messageYjsUpdate, Y.diffUpdate(piece, stateVector)));
      }
      group = [];
      size = 0;
    };
    for (const update of this.local) {
      if (group.length > 0 && size + update.length > budget) emit();
      group.push(update);
      size += update.length;
    }
    emit();
  }

  /** Stop for good with a fatal close's message (no reconnect, nothing resent). */
  stop(code) {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.socket) this.socket.close(1000);
    this.socket = null;
    this.onStatus("closed", FATAL_CLOSES[code]);
    this.releaseWaiters(false);
  }

  closed(socket, code) {
    if (socket !== this.socket) return;
    this.socket = null;
    this.synced = false;
    // Others' cursors are stale until we hear from them again.
    const others = [...this.awareness.getStates().keys()].filter((id) => id !== this.doc.clientID);
    awarenessProtocol.removeAwarenessStates(this.awareness, others, this);
    if (this.stopped) return;
    if (code in FATAL_CLOSES) {
      this.stopped = true;
      this.onStatus("closed", FATAL_CLOSES[code]);
      this.releaseWaiters(false);
      return;
    }
    this.onStatus("offline");
    const delay = RECONNECT_DELAYS_MS[Math.min(this.attempt, RECONNECT_DELAYS_MS.length - 1)];
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  isOpen() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  sendCounted(frame) {
    if (frame.length > this.maxMessageBytes) {
      // One change too large by itself: never sent (the server would close the socket over
      // it). Later changes of this page build on it (Yjs orders each page's changes), so the
      // server could never take them either: stop, and say so. The board never gets here (its
      // binding writes in pieces under the limit); a too-large answer to a step 1 neither.
      this.stop(4413);
      return;
    }
    // While the socket is down the edit stays in the Y.Doc; the next sync uploads it.
    if (!this.isOpen()) return;
    this.pending += 1;
    this.socket.send(frame);
  }

  sendAwareness(clients) {
    if (!this.isOpen()) return;
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MSG_AWARENESS);
    encoding.writeVarUint8Array(
      encoder,
      awarenessProtocol.encodeAwarenessUpdate(this.awareness, clients),
    );
    this.socket.send(encoding.toUint8Array(encoder));
  }

  acknowledged() {
    this.pending = Math.max(0, this.pending - 1);
    if (this.pending === 0 && this.synced) this.releaseWaiters(true);
  }

  releaseWaiters(value) {
    if (value) this.local = []; // all stored: a later resync needs none of them
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((resolve) => resolve(value));
  }

  /** Resolves true once everything typed so far is stored on the server (false on timeout). */
  flush(timeoutMs = 4000) {
    if (this.synced && this.pending === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      const done = (value) => {
        clearTimeout(timer);
        resolve(value);
      };
      this.waiters.push(done);
    });
  }

  /** Drops the socket as a network failure would (tests use it); the provider reconnects. */
  dropConnection() {
    if (this.socket) this.socket.close();
  }

  destroy() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.doc.off("update", this.onDocUpdate);
    this.awareness.off("update", this.onAwarenessUpdate);
    if (this.socket) this.socket.close(1000);
    this.releaseWaiters(false);
  }
}
