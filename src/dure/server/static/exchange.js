// Dure web UI, one exchange on screen: a message and its answer drawn from the turn's typed
// events — thinking steps, the streamed Markdown answer, sources, notices and approvals.
import { renderMarkdown } from "/static/markdown.js";
import { addAudit, missingLabels, showSlots } from "/static/panel.js";
import { $, el, preview, scrollToEnd } from "/static/ui.js";

const sourceLabel = (s) => [s.doc, s.article_no, s.article_title && `(${s.article_title})`].filter(Boolean).join(" ");

// A step as the "생각 과정" list shows it: [label, text].
function describe(e) {
  switch (e.type) {
    case "thinking": return ["생각", e.content || e.step];
    case "planning": return ["계획", e.content || "다음에 할 일을 정하는 중"];
    case "tool_selected":
      return ["도구 선택", (e.tools || []).map((t) => t.name).join(", ") || e.content || ""];
    case "tool_result":
      return [e.ok === false ? "도구 실패" : "도구 결과", `${e.tool || ""} ${preview(e.content)}`.trim()];
    case "evaluation_result":
      return ["평가", e.is_sufficient ? "정보가 충분합니다" : `더 찾아봅니다${e.missing_info ? ` — ${e.missing_info}` : ""}`];
    case "generating": return ["답변", e.content || "답변을 작성하는 중"];
    case "queued": return ["대기", e.content];
    case "slots": return ["작업 정보", (e.missing || []).length ? `남은 항목: ${missingLabels(e).join(", ")}` : "모두 채워짐"];
    case "question": return ["질문", e.content];
    case "error": return [e.code === "cancelled" ? "중지" : "오류", e.content];
    default: return [e.type, preview(e.content)];
  }
}

// `actions` are the app's: `send(reply)` answers the agent (an approval's answer),
// `openArticle(source)` shows a source's article in the panel.
export class Exchange {
  constructor(turn, actions) {
    this.turn = turn;
    this.actions = actions;
    this.steps = 0;
    this.text = "";
    this.node = el("article", { class: "exchange" });
    this.node.append(el("div", { class: "bubble user" }, turn.message));
    this.reply = el("div", { class: "bubble assistant" });
    this.details = el("details", { class: "steps" });
    this.summary = el("summary", {}, "생각 과정");
    this.stepList = el("ol");
    this.details.append(this.summary, this.stepList);
    this.details.hidden = true;
    this.answer = el("div", { class: "answer markdown" });
    this.sources = el("div", { class: "sources" });
    this.sources.hidden = true;
    this.notice = el("div", { class: "notice" });
    this.notice.hidden = true;
    this.reply.append(this.details, this.answer, this.sources, this.notice);
    this.node.append(this.reply);
    $("messages").append(this.node);
  }

  event(e) {
    if (this.queued && e.type !== "queued") {
      this.queued = false;
      this.notice.hidden = true;
    }
    if (e.type === "token") {
      this.text += e.content;
      this.answer.classList.add("streaming");
      this.renderSoon();
      return;
    }
    if (e.type === "done") return this.done(e);
    if (e.type === "sources") return this.setSources(e.content);
    if (e.type === "slots") showSlots(e.content, e.missing, e.rows);
    if (e.type === "tool_result" && e.step) addAudit(e.step, this.turn.message, e.tool);
    if (e.type === "question" && e.approval && !this.finished) this.showApproval(e.approval);
    this.addStep(e);
    // The model is busy with other answers: where this one waits, until its turn comes.
    if (e.type === "queued" && !this.finished) {
      this.queued = true;
      this.showNotice(e.content, "wait");
      scrollToEnd();
    }
  }

  // A tool's side effect waits for a yes: approve, reject, or approve with edited arguments.
  showApproval(request) {
    const args = el("textarea", { class: "approval-args", rows: 4, "aria-label": "도구 인자 (JSON)" });
    args.value = JSON.stringify(request.args, null, 2);
    const problem = el("div", { class: "muted" });
    const answer = (reply) => { card.remove(); this.actions.send(reply); };
    const edited = () => {
      try {
        answer(JSON.stringify({ approve: true, args: JSON.parse(args.value) }));
      } catch (err) {
        problem.textContent = `인자가 올바른 JSON이 아닙니다: ${err.message}`;
      }
    };
    const card = el(
      "div",
      { class: "approval", role: "group", "aria-label": "도구 실행 승인" },
      el("b", {}, `도구 실행 승인: ${request.tool}`),
      el("div", { class: "muted" }, request.why || ""),
      args,
      problem,
      el("div", { class: "approval-buttons" },
        el("button", { type: "button", class: "primary", onclick: () => answer("승인") }, "승인"),
        el("button", { type: "button", onclick: () => answer("거절") }, "거절"),
        el("button", { type: "button", onclick: edited }, "수정해서 승인")),
    );
    this.reply.append(card);
  }

  addStep(e) {
    const [label, text] = describe(e);
    this.steps += 1;
    this.details.hidden = false;
    if (!this.finished) this.details.open = true;
    this.summary.textContent = `생각 과정 · ${this.steps}단계`;
    this.stepList.append(el("li", { class: `step step-${e.type}` }, el("b", {}, label), " ", text || ""));
    // A stopped answer says so itself (its last line); other errors get a notice.
    if (e.type === "error" && e.code !== "cancelled") this.showNotice(e.content, "error");
  }

  renderSoon() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = null;
      this.answer.innerHTML = renderMarkdown(this.text);
      scrollToEnd();
    });
  }

  setSources(sources) {
    this.sources.replaceChildren();
    if (!sources || !sources.length) return;
    this.sources.hidden = false;
    this.sources.append(el("span", { class: "muted" }, "출처"));
    for (const s of sources) {
      this.sources.append(el("button", { class: "chip", type: "button", title: "원문 보기", onclick: () => this.actions.openArticle(s) }, sourceLabel(s)));
    }
  }

  showNotice(text, kind) {
    this.notice.hidden = false;
    this.notice.className = `notice ${kind}`;
    this.notice.textContent = text;
  }

  done(e) {
    this.finished = true;
    if (this.pending) cancelAnimationFrame(this.pending);
    this.pending = null;
    this.answer.classList.remove("streaming");
    // The final answer is authoritative (budget or failure messages replace partial text).
    this.text = e.content || this.text;
    this.answer.innerHTML = renderMarkdown(this.text);
    this.details.open = false;
    if (e.waiting) this.reply.classList.add("question");
    if (e.sources && e.sources.length) this.setSources(e.sources);
    scrollToEnd();
  }

  static fromJournal(turn, actions) {
    const x = new Exchange(turn, actions);
    x.finished = true;
    for (const e of turn.events || []) x.event(e);
    if (turn.status === "interrupted" || turn.status === "running") {
      x.answer.innerHTML = "";
      const retry = el("button", { class: "link", type: "button", onclick: () => { $("input").value = turn.message; $("input").focus(); } }, "다시 보내기");
      x.showNotice(turn.status === "running" ? "답변을 만드는 중입니다…" : "이 답변은 중간에 끊겼습니다 (서버가 다시 시작됨). 대화는 직전 답변까지 그대로입니다. ", "warn");
      if (turn.status === "interrupted") x.notice.append(retry);
      return x;
    }
    x.done({ content: turn.answer || "", sources: turn.sources, waiting: turn.waiting });
    if (turn.status === "failed") x.showNotice("이 질문은 처리하지 못해 대화 기록에 남기지 않았습니다.", "error");
    return x;
  }
}
