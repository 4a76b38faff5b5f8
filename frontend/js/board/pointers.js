// The other participant's pointer on the board, through the session's existing awareness
// (y-protocols; the server labels each state with the socket's user name and role).
const POINTER_MS = 80;
const MAX_SELECTED = 200;
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
    this.selectedKey = "";
    this.onChange = () => this.render();
    awareness.on("change", this.onChange);
    // Where this person looks (the scene box their board shows), so another can follow them:
    // Excalidraw's own "follow" (a click on a collaborator's avatar) sets userToFollow, and
    // render() then keeps this board on that person's box.
    this.viewTimer = null;
    this.lastView = "";
    this.followed = "";
    api.onScrollChange(() => this.looked());
    this.looked();
  }

  /** Share this board's visible scene box (a few times a second at most). */
  looked() {
    if (this.viewTimer !== null) return;
    this.viewTimer = setTimeout(() => {
      this.viewTimer = null;
      const state = this.api.getAppState();
      const zoom = state.zoom?.value || 1;
      const view = {
        x: -state.scrollX,
        y: -state.scrollY,
        width: state.width / zoom,
        height: state.height / zoom,
      };
      if (![view.x, view.y, view.width, view.height].every(Number.isFinite)) return;
      const key = JSON.stringify(view);
      if (key === this.lastView) return;
      this.lastView = key;
      this.awareness.setLocalStateField("view", view);
    }, POINTER_MS * 2);
  }

  /** Keep this board on `view` (another person's scene box), fitted and centred. */
  follow(view) {
    if (!view || ![view.x, view.y, view.width, view.height].every(Number.isFinite)) return;
    if (view.width <= 0 || view.height <= 0) return;
    const key = JSON.stringify(view);
    if (key === this.followed) return;
    this.followed = key;
    const state = this.api.getAppState();
    const zoom = Math.min(30, Math.max(0.1, Math.min(state.width / view.width, state.height / view.height)));
    this.api.updateScene({
      appState: {
        zoom: { value: zoom },
        scrollX: -view.x + (state.width / zoom - view.width) / 2,
        scrollY: -view.y + (state.height / zoom - view.height) / 2,
      },
    });
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

  /** Excalidraw's onChange: share which elements this person has selected (ids only, at most
   * MAX_SELECTED), when that changes. The others see them outlined in this person's colour. */
  selected(selectedElementIds) {
    const ids = Object.keys(selectedElementIds || {})
      .filter((id) => selectedElementIds[id])
      .slice(0, MAX_SELECTED)
      .sort();
    const key = ids.join(",");
    if (key === this.selectedKey) return;
    this.selectedKey = key;
    this.awareness.setLocalStateField("selected", ids);
  }

  render() {
    const collaborators = new Map();
    this.awareness.getStates().forEach((state, clientId) => {
      if (clientId === this.awareness.clientID || !state?.pointer) return;
      const pointer = state.pointer;
      if (!Number.isFinite(pointer.x) || !Number.isFinite(pointer.y)) return;
      const user = state.user || {};
      const selectedElementIds = {};
      if (Array.isArray(state.selected)) {
        for (const id of state.selected.slice(0, MAX_SELECTED)) {
          if (typeof id === "string") selectedElementIds[id] = true;
        }
      }
      collaborators.set(String(clientId), {
        id: String(clientId),
        socketId: String(clientId),
        pointer: { x: pointer.x, y: pointer.y, tool: pointer.tool === "laser" ? "laser" : "pointer" },
        button: pointer.button === "down" ? "down" : "up",
        selectedElementIds,
        username: String(user.name || ""),
        color: COLORS[user.role] || COLORS.candidate,
      });
    });
    this.api.updateScene({ collaborators });
    const following = this.api.getAppState().userToFollow;
    if (!following) {
      this.followed = "";
      return;
    }
    const followedState = this.awareness.getStates().get(Number(following.socketId));
    if (followedState?.view) this.follow(followedState.view);
  }

  /** Follow (or, with null, stop following) the participant `socketId` (a test's handle on
   * what a click on their avatar does). */
  followUser(socketId) {
    const user = socketId === null ? null : this.api.getAppState().collaborators.get(String(socketId));
    this.api.updateScene({
      appState: { userToFollow: user ? { socketId: String(socketId), username: user.username } : null },
    });
    this.render();
  }
}
