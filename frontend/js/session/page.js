// The session page (interviews/templates/interviews/session_detail.html).
//
// Page contract: #session carries data-base-url (/sessions/<id>), data-user-name; the JSON
// state is in #session-state and the caret colours in #cursor-colors (json_script);
// #session-editor is where CodeMirror mounts;
// #session-timer, #connection, #session-banner; #finish-button; the desk (the practice page's
// toolbar, settings, shortcuts, and results pane with custom input and console:
// frontend/templates/frontend/_desk.html, js/desk.js); #questions-panel,
// #notes-panel, #activity (interviewer) and #interviewer-edit (interviewer's checkbox).
// A design session (#session[data-design=true]) has no desk: its work pane is the shared
// whiteboard and the notes pane (js/session/design.js), and nothing is run or submitted.
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { yCollab } from "y-codemirror.next";
import { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";

import { Desk } from "../desk.js";
import { clock } from "../dom.js";
import { editorExtensions } from "../editor.js";
import { idempotencyKey, submissionFollow } from "../grader.js";
import { ApiError, getJson, postJson } from "./api.js";
import {
  CallLink,
  ChatPanel,
  Cockpit,
  candidateHintAdd,
  coInterviewerFormMount,
  copyButtonsMount,
  hintBannerMount,
  localTimesRender,
  sideTabsMount,
} from "./cockpit.js";
import { boardAlert, designDeskMount, referenceViewerMount } from "./design.js";
import { ActivityFeed, NotesPanel, QuestionsPanel } from "./panels.js";
import { SessionProvider } from "./provider.js";
import { Countdown } from "./timer.js";

const CONNECTION_TEXT = {
  connecting: "Connecting…",
  synced: "Connected",
  offline: "Offline: reconnecting. Your edits are kept and will be merged.",
};
const FINISH_TEXT = {
  deadline: "Time is up. Your code as of the deadline was submitted.",
  candidate: "The candidate ended the session. The code was submitted.",
  interviewer: "The interviewer ended the session. The code was submitted.",
};
// Whoever ended it reads about themselves; a solo session has no one else to speak of.
const OWN_FINISH_TEXT = "You ended the session. Your code was submitted.";
// A design session submits no code: its board and notes are what it leaves.
const DESIGN_FINISH_TEXT = {
  deadline: "Time is up. The board and the notes are kept as they were at the deadline.",
  candidate: "The candidate ended the session. The board and the notes are kept.",
  interviewer: "The interviewer ended the session. The board and the notes are kept.",
};
const OWN_DESIGN_FINISH_TEXT = "You ended the session. The board and the notes are kept.";

/** The end banner's words for `reason`, as the reader of this page should read them. */
export function finishText(reason, { role, kind, design = false }) {
  if (reason === role || (kind === "solo" && reason === "candidate")) {
    return design ? OWN_DESIGN_FINISH_TEXT : OWN_FINISH_TEXT;
  }
  return (design ? DESIGN_FINISH_TEXT : FINISH_TEXT)[reason] || "The session is over.";
}

export function sessionPageMount(root) {
  const state = JSON.parse(document.getElementById("session-state").textContent);
  // {role: {color, colorLight}} from core/csp.py, whose policy allows exactly these styles.
  const cursorColors = JSON.parse(document.getElementById("cursor-colors").textContent);
  const base = root.dataset.baseUrl.replace(/\/$/, "");
  const urls = {
    run: `${base}/run`,
    finish: `${base}/finish`,
    questions: `${base}/questions`,
    notes: `${base}/notes`,
    events: `${base}/events`,
    settings: `${base}/settings`,
    extend: `${base}/extend`,
    state: `${base}/state`,
    chat: `${base}/chat`,
    callLink: `${base}/call-link`,
    privateNotes: `${base}/private-notes`,
    canned: `${base}/canned`,
    hintReveal: `${base}/hints/reveal`,
    done: `${base}/done`,
    coInterviewers: `${base}/co-interviewers`,
  };
  const role = state.role;
  const design = root.dataset.design === "true";
  const banner = document.getElementById("session-banner");
  const connection = document.getElementById("connection");
  const finishButton = document.getElementById("finish-button");
  // A design session's page has no desk (no code, no runs): see designDeskMount below.
  const desk = design ? null : new Desk(document.getElementById("desk"));
  const editToggle = document.getElementById("interviewer-edit");

  const showBanner = (text, kind = "info") => {
    banner.hidden = !text;
    banner.textContent = text || "";
    banner.dataset.kind = kind;
  };

  // ---------------------------------------------------------------- the shared editor

  const doc = new Y.Doc();
  const ytext = doc.getText("code");
  const awareness = new Awareness(doc);
  awareness.setLocalStateField("user", {
    name: root.dataset.userName,
    ...(cursorColors[role] || cursorColors.candidate),
  });
  const readOnly = new Compartment();
  let interviewerCanEdit = Boolean(state.interviewer_can_edit);
  let view = null;
  let designDesk = null;
  if (design) {
    designDesk = designDeskMount({
      doc,
      awareness,
      editable: Boolean(state.can_edit),
      userName: root.dataset.userName,
    });
  } else {
    // The setup shared with the practice editor: 4-space indent, the user's preferences (the
    // same ones, kept in the same place), the desk's keys.
    const setup = editorExtensions({
      prefs: desk.prefs,
      label: "Shared solution code",
      describedBy: "editor-escape-hint",
      extraKeys: desk.editorKeys((mode) => start(mode)),
    });
    view = new EditorView({
      parent: document.getElementById("session-editor"),
      state: EditorState.create({
        doc: ytext.toString(),
        extensions: [
          ...setup.extensions,
          yCollab(ytext, awareness, { undoManager: new Y.UndoManager(ytext) }),
          readOnly.of(EditorState.readOnly.of(!state.can_edit)),
        ],
      }),
    });
    desk.editorAttach(view, setup.apply);
  }
  const setEditable = (editable) => {
    root.dataset.canEdit = String(editable);
    view?.dispatch({ effects: readOnly.reconfigure(EditorState.readOnly.of(!editable)) });
    designDesk?.setEditable(editable);
  };
  // Everything drawn so far handed to the document, then stored on the server.
  const flushAll = (ms) => {
    designDesk?.flush();
    return provider.flush(ms);
  };
  // The session's interviewer and its co-interviewers (who watch, read-only unless the session
  // lets interviewers edit): core.visibility.session_access.
  const interviewerSide = role === "interviewer" || role === "co_interviewer";
  const roleMayEdit = () => role === "candidate" || (interviewerSide && interviewerCanEdit);
  setEditable(Boolean(state.can_edit));

  // ---------------------------------------------------------------- results

  let follower = null;
  let followedId = null;
  const setBusy = (busy) => {
    root.dataset.busy = String(busy);
    const closed = state.status !== "active";
    desk?.setBusy(busy, { closed });
    if (finishButton) finishButton.disabled = busy || closed;
    // "I'm done" is said once; it stays free while a run is in flight.
    const done = document.getElementById("done-button");
    if (done) done.disabled = done.dataset.sent === "true" || closed;
  };
  // Follows one run in the desk panel of its mode; `focus` only for this page's own click
  // (a run the other participant started must not take the focus from here).
  const follow = (id, mode, { focus = false, input } = {}) => {
    if (!id || followedId === id || !desk) return;
    follower?.stop();
    followedId = id;
    root.dataset.submission = String(id);
    if (mode === "custom") desk.customInputShow(input);
    const panel = desk.runBegin(mode, { focus });
    setBusy(true);
    const current = submissionFollow({
      id,
      apiUrl: "/api/submissions",
      onEvent: (event) => {
        if (follower !== current) return;
        panel.handle(event);
        if (event.type === "done" || (event.type === "status" && event.status === "failed")) {
          setBusy(false);
        }
      },
      onError: (message) => {
        if (follower !== current) return;
        panel.fail(message);
        setBusy(false);
      },
    });
    follower = current;
  };
  // A click whose request is still on its way: a second click (a double click) is ignored;
  // the request's Idempotency-Key covers what slips past.
  let creating = false;
  const start = async (mode) => {
    if (creating) return;
    const body = { mode };
    if (mode === "custom") {
      const parsed = desk.customInputRead();
      if (!parsed.ok) return;
      body.input = parsed.value;
    }
    creating = true;
    setBusy(true);
    desk.resultsFocus(mode); // the clicked button is disabled: focus goes to the results
    try {
      // Grade what the server has: wait until every keystroke so far is stored there.
      await provider.flush(4000);
      const answer = await postJson(urls.run, body, {
        headers: { "Idempotency-Key": idempotencyKey() },
      });
      follow(answer.id, mode, { focus: true });
    } catch (error) {
      desk.runBegin(mode, { focus: true }).fail(
        error instanceof ApiError ? error.message : "Something went wrong.",
      );
      setBusy(false);
    } finally {
      creating = false;
    }
  };

  // ---------------------------------------------------------------- the clock and the end

  const finish = (event) => {
    if (root.dataset.status === "finished" && followedId === event.submission) return;
    state.status = "finished";
    root.dataset.status = "finished";
    setEditable(false);
    countdown.stop("00:00");
    document.getElementById("extend-form")?.remove();
    setBusy(false);
    const text = finishText(event.reason, { role, kind: state.kind, design });
    showBanner(event.error ? `${text} (${event.error})` : text, "done");
    if (event.submission) follow(event.submission, "submit");
    closeForms();
    reportLinkShow();
    scorecardLinkShow();
    // What comes after it, if anything (a practice loop's next round): one click away.
    document.getElementById("next-step")?.removeAttribute("hidden");
    doneNotice.hide();
  };
  const awaitFinish = async () => {
    // The socket normally brings the end; if it is down, ask (which also ends the session on
    // the server if its deadline task has not run yet).
    for (let i = 0; i < 20 && state.status !== "finished"; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      if (state.status === "finished") return;
      try {
        const fresh = await getJson(urls.state);
        if (fresh.status === "finished") {
          finish({ reason: fresh.finish_reason, submission: fresh.final_submission });
        }
      } catch {
        // Keep trying: the server may be restarting.
      }
    }
  };
  // The invitation e-mail is sent by a background task: follow it until it is sent or failed.
  const inviteMail = document.getElementById("invite-mail");
  const followInvitation = async () => {
    for (let i = 0; i < 40 && inviteMail.dataset.state === "pending"; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      try {
        const { invitation } = await getJson(urls.state);
        if (invitation && invitation.sent) {
          inviteMail.dataset.state = "sent";
          inviteMail.textContent = inviteMail.dataset.sentText;
        } else if (invitation && invitation.error) {
          inviteMail.dataset.state = "error";
          inviteMail.classList.add("form-error");
          inviteMail.textContent = `${inviteMail.dataset.errorText} (${invitation.error})`;
        }
      } catch {
        // Keep asking: the server may be restarting.
      }
    }
  };
  if (inviteMail && inviteMail.dataset.state === "pending") followInvitation();
  const countdown = new Countdown(document.getElementById("session-timer"), {
    serverNow: state.server_now,
    announcer: document.getElementById("session-timer-announce"),
    onExpire: () => {
      if (state.status !== "active") return;
      setEditable(false);
      showBanner(design ? "Time is up: closing the board…" : "Time is up: submitting your code…", "warn");
      awaitFinish();
    },
  });

  // ---------------------------------------------------------------- side panel

  const questions = new QuestionsPanel(document.getElementById("questions-panel"), { urls, role });
  const notes = new NotesPanel(document.getElementById("notes-panel"), { urls });
  const activity = new ActivityFeed(document.getElementById("activity"));
  const chat = new ChatPanel(document.getElementById("chat-panel"), {
    url: urls.chat,
    userName: root.dataset.userName,
  });
  const callLink = new CallLink({ url: urls.callLink });
  const hintBanner = hintBannerMount(document.getElementById("hint-banner"));
  const cockpit = new Cockpit(document.getElementById("cockpit"), {
    urls,
    onQuestion: (question) => questions.render(question),
  });
  state.questions.forEach((question) => questions.render(question));
  state.notes.forEach((note) => notes.render(note));
  (state.chat || []).forEach((message) => chat.render(message));
  localTimesRender(root);
  copyButtonsMount(root);
  const tabs = sideTabsMount(root.querySelector(".side-pane.has-tabs"));
  if (design) referenceViewerMount();
  coInterviewerFormMount(document.getElementById("co-interviewer-form"), {
    url: urls.coInterviewers,
  });
  // The candidate's "I'm done", in the interviewer's panel above every tab.
  const doneNotice = {
    node: document.getElementById("done-notice"),
    show(at) {
      if (!this.node || state.status === "finished") return;
      const when = document.getElementById("done-notice-at");
      if (when && at) {
        const time = document.createElement("time");
        time.className = "local-clock";
        time.setAttribute("datetime", at);
        when.replaceChildren(document.createTextNode(" at "), time);
        localTimesRender(when);
      }
      this.node.hidden = false;
    },
    hide() {
      if (this.node) this.node.hidden = true;
    },
  };
  const doneButton = document.getElementById("done-button");
  const doneSaid = () => {
    if (!doneButton) return;
    doneButton.dataset.sent = "true";
    doneButton.disabled = true;
    doneButton.textContent = "✓ Told the interviewer";
    if (state.status === "active") {
      showBanner(
        "You told the interviewer you are done. They end the session; until then you may keep working.",
        "done",
      );
    }
  };
  if (state.candidate_done_at && state.status === "active") doneSaid();
  // The session is over: the interviewer's scorecard (the review page) is one click away.
  function scorecardLinkShow() {
    if (!interviewerSide || !root.dataset.reviewUrl) return;
    if (document.getElementById("scorecard-link")) return;
    const link = document.createElement("a");
    link.id = "scorecard-link";
    link.className = "button primary scorecard-link";
    link.href = root.dataset.reviewUrl;
    link.textContent = "Score this interview";
    banner.after(link);
  }
  // The session is over: the candidate's feedback report is one click away.
  function reportLinkShow() {
    if (role !== "candidate" || document.getElementById("report-link")) return;
    const link = document.createElement("a");
    link.id = "report-link";
    link.className = "button primary report-link";
    link.href = root.dataset.reportUrl;
    link.textContent = "Read your feedback report";
    banner.after(link);
  }
  // The session is over: nothing more can be asked, noted, said or revealed.
  function closeForms() {
    root
      .querySelectorAll(
        "#question-form textarea, #question-form button, #note-form select, #note-form textarea, " +
          "#note-form button, #hint-button, .answer-form textarea, .answer-form button",
      )
      .forEach((node) => {
        node.disabled = true;
      });
    chat.close();
    callLink.close();
    cockpit.close();
    root.querySelectorAll(".side-form, .answer-form").forEach((form) => {
      form.dataset.closed = "true";
    });
  }

  // ---------------------------------------------------------------- events from the server

  const onEvent = (event) => {
    switch (event.type) {
      case "submission":
        return follow(event.id, event.mode, { input: event.input });
      case "question":
      case "question_detail":
        tabs.notify("live");
        return questions.render(event.question);
      case "note":
        tabs.notify("notes");
        return notes.render(event.note);
      case "event":
        if (event.kind === "hint") cockpit.hintRevealed(event.number);
        if (event.kind === "done") {
          doneNotice.show(event.at);
          tabs.notify("live");
        }
        return activity.add(event);
      case "hint":
        if (role === "candidate") {
          candidateHintAdd(event.number, event.text);
          hintBanner.show(event.number, event.text);
        } else cockpit.hintRevealed(event.number);
        return undefined;
      case "chat":
        tabs.notify("live");
        return chat.render(event.message);
      case "call_link":
        return callLink.show(event.call_link);
      case "settings":
        interviewerCanEdit = Boolean(event.interviewer_can_edit);
        if (editToggle) editToggle.checked = interviewerCanEdit;
        if (interviewerSide && state.status === "active") setEditable(interviewerCanEdit);
        return undefined;
      case "extended":
        state.deadline = event.deadline;
        countdown.start(event.deadline);
        showBanner(interviewerSide
          ? `You gave ${event.minutes} more minutes.`
          : `Your interviewer gave you ${event.minutes} more minutes.`);
        return undefined;
      case "started":
        state.status = "active";
        root.dataset.status = "active";
        countdown.start(event.deadline);
        setEditable(roleMayEdit());
        setBusy(false);
        showBanner(interviewerSide ? `${event.candidate} joined: the clock runs.` : "");
        document.getElementById("invite-box")?.remove();
        return undefined;
      case "refused":
        setEditable(false);
        if (event.reason === "board_full") {
          // Said at the board (the socket then closes 4409: reconnecting would resend it).
          boardAlert(event.message);
          return undefined;
        }
        if (event.message) {
          // A change the board cannot hold (invalid_board): said at the board.
          showBanner(`Your last edit was not saved. ${event.message}`, "warn");
          designDesk?.board.alert(`Your last change was not saved. ${event.message}`);
        } else showBanner(`Your last edit was not saved: ${event.reason}.`, "warn");
        if (event.status === "finished") awaitFinish();
        return undefined;
      case "finished":
        return finish(event);
      default:
        return undefined;
    }
  };
  const onStatus = (status, detail) => {
    connection.dataset.state = status;
    connection.textContent = detail || CONNECTION_TEXT[status] || status;
    if (status === "synced") root.dataset.ready = "true";
    if (status === "closed") {
      setEditable(false);
      if (design && detail) boardAlert(detail); // said at the board too, not only up here
    }
  };
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const provider = new SessionProvider({
    url: `${scheme}://${window.location.host}/ws/sessions/${state.id}/doc/`,
    doc,
    awareness,
    onEvent,
    onStatus,
    maxMessageBytes: state.doc_max_message_bytes,
  });

  // ---------------------------------------------------------------- controls

  finishButton?.addEventListener("click", async () => {
    const question = design
      ? "End the session now? The board and the notes are kept as they are."
      : "End the session now and submit the code as it is?";
    if (!window.confirm(question)) return;
    await flushAll(4000);
    try {
      const answer = await postJson(urls.finish);
      finish({ reason: role, submission: answer.submission });
    } catch (error) {
      showBanner(error instanceof ApiError ? error.message : "Something went wrong.", "warn");
    }
  });
  doneButton?.addEventListener("click", async () => {
    doneButton.disabled = true;
    await flushAll(4000);
    try {
      await postJson(urls.done);
      doneSaid();
    } catch (error) {
      doneButton.disabled = state.status !== "active";
      showBanner(error instanceof ApiError ? error.message : "Something went wrong.", "warn");
    }
  });
  const extendForm = document.getElementById("extend-form");
  extendForm?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = extendForm.querySelector("button");
    button.disabled = true;
    try {
      const answer = await postJson(urls.extend, { minutes: Number(extendForm.elements.minutes.value) });
      // A loop's next round keeps its start: say so when this round now ends after it.
      const note = document.getElementById("extend-note");
      const into = answer.runs_into;
      if (note) {
        note.hidden = !into;
        note.textContent = into
          ? `${into.what[0].toUpperCase()}${into.what.slice(1)} starts at ${clock(into.starts)}, ` +
            `before this interview now ends (${clock(answer.deadline)}); it keeps its time.`
          : "";
      }
    } catch (error) {
      showBanner(error instanceof ApiError ? error.message : "Something went wrong.", "warn");
    } finally {
      button.disabled = false;
    }
  });
  editToggle?.addEventListener("change", async () => {
    try {
      await postJson(urls.settings, { interviewer_can_edit: editToggle.checked });
    } catch (error) {
      editToggle.checked = !editToggle.checked;
      showBanner(error instanceof ApiError ? error.message : "Something went wrong.", "warn");
    }
  });
  if (role === "candidate") {
    // Leaving the tab is part of the record the interviewer reviews.
    document.addEventListener("visibilitychange", () => {
      if (state.status !== "active") return;
      const kind = document.visibilityState === "hidden" ? "tab_hidden" : "tab_visible";
      postJson(urls.events, { kind }, { keepalive: true }).catch(() => {});
    });
  }

  // ---------------------------------------------------------------- initial state

  root.dataset.status = state.status;
  if (state.status === "active" && state.deadline) {
    countdown.start(state.deadline);
  } else if (state.status === "scheduled") {
    countdown.stop("not started");
  }
  setBusy(false);
  if (state.status === "finished") {
    finish({ reason: state.finish_reason, submission: state.final_submission });
  }

  // A small, stable handle for tests.
  window.onsiteSession = {
    view,
    doc,
    awareness,
    provider,
    getCode: () => ytext.toString(),
    setCode: (code) =>
      view?.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: String(code) } }),
    flush: (ms) => flushAll(ms),
    board: designDesk?.board ?? null,
    getNotes: () => doc.getText("notes").toString(),
  };
}
