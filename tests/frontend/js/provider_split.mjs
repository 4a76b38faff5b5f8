// The session provider (frontend/js/session/provider.js) against a stand-in WebSocket, run by
// tests/frontend/test_provider_split.py with node: a page that drew a big board while the
// server did not have it (offline) answers the server's step 1 in frames under the limit,
// each stored on its own; a document larger than one message loads from the server's several
// frames and counts as synced only at the last (the empty step 2). Prints one JSON line.
const [, , frontend] = process.argv;
const Y = await import(`${frontend}/node_modules/yjs/dist/yjs.mjs`);
const encoding = await import(`${frontend}/node_modules/lib0/encoding.js`);
const decoding = await import(`${frontend}/node_modules/lib0/decoding.js`);
const awarenessProtocol = await import(`${frontend}/node_modules/y-protocols/awareness.js`);

const sockets = [];
class FakeSocket {
  static OPEN = 1;
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.listeners = {};
    sockets.push(this);
  }
  addEventListener(type, listener) {
    (this.listeners[type] ||= []).push(listener);
  }
  send(frame) {
    this.sent.push(frame);
  }
  close() {
    this.readyState = 3;
  }
  emit(type, event = {}) {
    (this.listeners[type] || []).forEach((listener) => listener(event));
  }
  open() {
    this.readyState = FakeSocket.OPEN;
    this.emit("open");
  }
}
globalThis.WebSocket = FakeSocket;
const { SessionProvider } = await import(`${frontend}/js/session/provider.js`);

const LIMIT = 64 * 1024;
const frame = (syncType, payload) => {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint(encoder, syncType);
  encoding.writeVarUint8Array(encoder, payload);
  return encoding.toUint8Array(encoder).buffer;
};
const parse = (bytes) => {
  const decoder = decoding.createDecoder(bytes);
  const type = decoding.readVarUint(decoder);
  const syncType = decoding.readVarUint(decoder);
  return { type, syncType, payload: decoding.readVarUint8Array(decoder) };
};
const findings = {};

// 1. Drawn offline (in 20 pieces, as the board binding writes a big paste), then the server's
// step 1 with an empty document: the answer is several update frames under the limit.
const doc = new Y.Doc();
const statuses = [];
const provider = new SessionProvider({
  url: "ws://test/", doc, awareness: new awarenessProtocol.Awareness(doc),
  onStatus: (status) => statuses.push(status), maxMessageBytes: LIMIT,
});
const board = doc.getMap("board");
for (let piece = 0; piece < 20; piece += 1) {
  doc.transact(() => {
    for (let i = 0; i < 100; i += 1) {
      board.set(`e${piece}-${i}`, { id: `e${piece}-${i}`, version: 1, text: "x".repeat(100) });
    }
  });
}
const socket = sockets[0];
socket.open();
socket.sent.length = 0;
socket.emit("message", { data: frame(0, new Uint8Array([0])) }); // step 1: "I have nothing"
const answer = socket.sent.map((f) => parse(f));
findings.answerSplit = answer.length > 2 && socket.sent.every((f) => f.length <= LIMIT);
findings.answerAreUpdates = answer.every((m) => m.type === 0 && m.syncType === 2);
const server = new Y.Doc();
answer.forEach((m) => Y.applyUpdate(server, m.payload));
findings.answerComplete = server.getMap("board").size === 2000;
findings.notStopped = provider.stopped === false;

// 2. The server's several frames, then the empty step 2: synced only then.
const big = new Y.Doc();
const parts = [];
big.on("update", (u) => parts.push(u));
for (let piece = 0; piece < 10; piece += 1) {
  big.transact(() => {
    for (let i = 0; i < 100; i += 1) big.getMap("board").set(`s${piece}-${i}`, { id: `s${piece}-${i}`, version: 1, text: "y".repeat(100) });
  });
}
const page = new Y.Doc();
const pageStatuses = [];
new SessionProvider({
  url: "ws://test/", doc: page, awareness: new awarenessProtocol.Awareness(page),
  onStatus: (status) => pageStatuses.push(status), maxMessageBytes: LIMIT,
});
const pageSocket = sockets[1];
pageSocket.open();
parts.forEach((u) => pageSocket.emit("message", { data: frame(2, u) }));
const syncedEarly = pageStatuses.includes("synced");
pageSocket.emit("message", { data: frame(1, new Uint8Array([0, 0])) });
findings.syncedOnlyAtTheEnd = !syncedEarly && pageStatuses.at(-1) === "synced";
findings.pageHasAll = page.getMap("board").size === 1000;

console.log(JSON.stringify(findings));
process.exit(0); // the awareness keeps a timer
