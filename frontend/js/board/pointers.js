// The other participant's pointer on the board, through the session's existing awareness
// (y-protocols; the server labels each state with the socket's user name and role).
const POINTER_MS = 80;
// The same colours as the code editor's carets (core/csp.py CURSOR_COLORS).
const COLORS = {
  candidate: { background: "#2f5bd3", stroke: "#2f5bd3" },
  interviewer: { background: "#c2410c", stroke: "#c2410c" },
};

export class PointerSync {
  constructor({ api, awareness }) {
    this.api = api;
    this.awareness = awareness;
    this.last = 0;
    this.timer = null;
    this.pending = null;
    this.onChange = () => this.render();
    awareness.on("change", this.onChange);
  }

  /** Excalidraw's onPointerUpdate: share where this pointer is, a dozen times a second. */
  moved({ pointer, button }) {
    this.pending = { x: pointer.x, y: pointer.y, tool: pointer.tool, button };
    if (this.timer !== null) return;
    const wait = Math.max(0, POINTER_MS - (Date.now() - this.last));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.last = Date.now();
      this.awareness.setLocalStateField("pointer", this.pending);
    }, wait);
  }

  render() {
    const collaborators = new Map();
    this.awareness.getStates().forEach((state, clientId) => {
      if (clientId === this.awareness.clientID || !state?.pointer) return;
      const pointer = state.pointer;
      if (!Number.isFinite(pointer.x) || !Number.isFinite(pointer.y)) return;
      const user = state.user || {};
      collaborators.set(String(clientId), {
        pointer: { x: pointer.x, y: pointer.y, tool: pointer.tool === "laser" ? "laser" : "pointer" },
        button: pointer.button === "down" ? "down" : "up",
        username: String(user.name || ""),
        color: COLORS[user.role] || COLORS.candidate,
      });
    });
    this.api.updateScene({ collaborators });
  }
}
