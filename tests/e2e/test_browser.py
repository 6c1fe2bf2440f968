"""The web UI in a real browser (Playwright driving Debian chromium, headless), against a live
server on loopback with the scripted test agents. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from langchain_core.messages import AIMessage
from playwright.sync_api import Browser, Page, expect, sync_playwright

from dure.agents.assistant.prompts import CONTEXT_HEADER
from dure.agents.tasks.places import SAMPLE_NOTICE
from dure.llm import ModelSet
from dure.server import create_app
from dure.server.keys import create_key
from dure.settings import Settings
from dure.testing import Call, ScriptedChatModel, tool_call
from dure.untrusted import without_delimiters
from server_agents import EXTRA_AGENTS
from server_support import live_server

pytestmark = pytest.mark.browser

ROOT = Path(__file__).parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
SOFTWARE = ROOT / "examples" / "contracts" / "software_dev.md"
CHROMIUM = "/usr/bin/chromium"
CONTRACT = """# 소프트웨어 개발 용역 계약서

제1조 (목적) 이 계약은 갑이 을에게 소프트웨어 개발을 맡기는 데 필요한 사항을 정한다.

제2조 (계약기간) 계약기간은 2025년 1월 1일부터 2025년 12월 31일까지로 한다.

제3조 (대금의 지급) ① 갑은 을에게 개발 대금 5천만 원을 지급한다.
② 대금은 검수 완료 후 30일 이내에 지급한다.
"""


SUM = "12+30은 **42**입니다."
HANDBOOK = """# 두레상사 직원 안내서

## 휴가 정책
연차 유급휴가는 입사 1년 후 15일이 주어진다. 병가는 연 10일까지 유급이다.

## 출장 규정
국내 출장 일비는 하루 5만원이며 숙박비는 1박 10만원까지 실비로 지원한다.
"""
LEAVE = "안내서의 휴가 정책에 따르면 연차 유급휴가는 입사 1년 후 15일입니다."


def scripted(call: Call) -> str | dict[str, object] | AIMessage:
    """The scripted model behind the shipped agents, by node: the task agent's question draft
    and answer, plan-then-execute's intent, plan and answer, the assistant's python_repl call
    and its answer from the tool's result or from the documents it was given, the contract
    agent's answer."""
    if call.node == "agent":
        if f"\n{CONTEXT_HEADER}\n" in call.prompt:  # the documents found, not the rule naming them
            return LEAVE
        last = call.messages[-1]
        if last.type == "tool":  # the tool's output, read out of its data delimiters
            output = without_delimiters(str(last.content)).strip()
            return f"파이썬으로 계산한 결과는 {output}입니다."
        return tool_call("python_repl", code="print(6 * 7)")
    if call.node == "worker":  # the lunch menu ranking: the first dish it was offered
        offered = [line[2:].split(" (")[0] for line in call.prompt.splitlines() if line[:2] == "- "]
        return {"dishes": offered[:1]}
    if call.node == "qa_agent":
        return {
            "pattern": "ASK",
            "acknowledgement": "을지로, 2명으로 확인했습니다.",
            "question": "시간은 언제로 할까요?",
        }
    if call.node == "intent_classifier":
        return {"intent": "new_question", "rewritten_query": "12+30 계산", "needs_tool": True}
    if call.node == "planner":
        return {"plan": [{"step_id": 1, "tool": "calculator", "input": {"expression": "12+30"}}]}
    if call.node == "final_answer":
        return SUM
    return (
        "**제5조(대금의 지급)**에 따르면 선급금은 계약 체결일로부터 14일 이내에 "
        "계약금액의 30퍼센트를 지급합니다.\n\n1. 선급금 30%\n2. 중도금 30%\n3. 잔금 40%"
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Settings]]:
    """A live server (auth on), one API key, and the server's settings."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    mp = pytest.MonkeyPatch()
    data = tmp_path_factory.mktemp("browser")
    mp.setenv("DURE_EXTRA_AGENTS", EXTRA_AGENTS)
    # Keyword search in memory: no embedding model to load for the real contract agent.
    settings = Settings(data_dir=data / "data", enable_cache=False, search={"store": "memory"})

    async def key() -> str:
        from dure.server.database import open_storage

        async with open_storage(settings.effective_database_url) as storage:
            return (await create_key(storage.db, "browser"))[1]

    secret = asyncio.run(key())
    models = ModelSet(settings, ScriptedChatModel(scripted))
    with live_server(create_app(settings, models=models)) as url:
        yield url, secret, settings
    mp.undo()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium, headless."""
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield b
        b.close()


def open_app(browser: Browser, url: str, key: str, width: int, height: int) -> Page:
    """A page on the app with the API key entered through the key dialog."""
    page = browser.new_page(viewport={"width": width, "height": height}, locale="ko-KR")
    page.goto(url)
    dialog = page.locator("#key-dialog")
    expect(dialog).to_be_visible()
    page.fill("#key-input", key)
    page.click("#save-key")
    expect(dialog).to_be_hidden()
    return page


def new_chat(
    page: Page, agent_title: str, contract: Path | None = None, shot: str | None = None
) -> None:
    """Start a chat through the new-chat dialog."""
    page.locator("#new-thread:visible, #welcome-new:visible").first.click()
    page.get_by_label(agent_title).check()
    if contract:
        page.set_input_files("#contract-file", str(contract))
    if shot:
        page.screenshot(path=ARTIFACTS / shot)
    page.click("#create-thread")
    expect(page.locator("#composer")).to_be_visible()


def ask(page: Page, text: str) -> None:
    """Type a message and send it with Enter."""
    page.fill("#input", text)
    page.press("#input", "Enter")


def test_contract_question_streams_and_cites_its_article(
    server: tuple[str, str, Settings], browser: Browser, tmp_path: Path
) -> None:
    url, key, _ = server
    contract = tmp_path / "용역계약.md"
    contract.write_text(CONTRACT, encoding="utf-8")
    page = open_app(browser, url, key, 1280, 860)
    new_chat(page, "시험용 계약서 Q&A", contract, shot="desktop-new-chat.png")

    ask(page, "천천히: 제3조 대금은 언제 지급하나요?")
    answer = page.locator(".exchange .answer").last
    expect(answer).to_have_class("answer markdown streaming")
    lengths = set()
    while "streaming" in (answer.get_attribute("class") or ""):
        lengths.add(len(answer.inner_text()))
        if len(lengths) == 4:
            page.screenshot(path=ARTIFACTS / "desktop-streaming.png")
        page.wait_for_timeout(150)
    assert len(lengths) >= 4, "the answer should grow token by token"
    expect(answer.locator("strong").first).to_have_text("용역계약.md 제3조 (대금의 지급)")
    expect(answer.locator("li")).to_have_count(2)

    steps = page.locator(".exchange details.steps").last
    expect(steps.locator("summary")).to_contain_text("생각 과정 · ")
    assert steps.get_attribute("open") is None  # collapsed once the answer is done
    steps.locator("summary").click()
    expect(steps.locator("li.step-tool_selected")).to_contain_text("get_article_by_index")

    page.get_by_role("button", name="용역계약.md 제3조 (대금의 지급)").click()
    article = page.locator("#article-card")
    expect(article).to_be_visible()
    expect(page.locator("#article-title")).to_have_text("제3조 (대금의 지급)")
    expect(page.locator("#article-text")).to_contain_text("검수 완료 후 30일 이내")
    expect(page.locator("#audit-list li")).to_contain_text("get_article_by_index")
    page.screenshot(path=ARTIFACTS / "desktop-contract.png")

    page.reload()  # the journal redraws the same conversation
    expect(page.locator(".exchange")).to_have_count(1)
    expect(page.locator(".exchange .chip")).to_have_text("용역계약.md 제3조 (대금의 지급)")
    page.close()


def test_the_real_contract_agent_cites_its_article(
    server: tuple[str, str, Settings], browser: Browser
) -> None:
    """The shipped contract agent (scripted model) on a sample contract uploaded in the UI."""
    url, key, _ = server
    page = open_app(browser, url, key, 1280, 860)
    new_chat(page, "계약서 Q&A (조항 인용 답변)", SOFTWARE)
    ask(page, "제5조 내용이 뭐야?")
    answer = page.locator(".exchange .answer").last
    # The first turn loads the Korean tokenizer and indexes the contract: give it time.
    expect(answer).to_contain_text("14일 이내", timeout=120_000)
    expect(answer.locator("ol li")).to_have_count(3)
    chip = page.locator(".exchange .chip").filter(has_text="제5조 (대금의 지급)")
    expect(chip).to_have_count(1)
    chip.click()
    expect(page.locator("#article-title")).to_have_text("제5조 (대금의 지급)")
    expect(page.locator("#article-text")).to_contain_text("세금계산서를 발행하여야 하며")
    page.screenshot(path=ARTIFACTS / "desktop-contract-agent.png")
    page.close()


def test_task_conversation_through_its_question(
    server: tuple[str, str, Settings], browser: Browser
) -> None:
    """The shipped task agent: a question for the missing slot, then the answer."""
    url, key, _ = server
    page = open_app(browser, url, key, 1280, 860)
    new_chat(page, "작업 도우미 (점심 추천·회의실 예약)")

    ask(page, "을지로에서 2명 점심 추천해 줘")
    question = page.locator(".bubble.assistant.question")
    expect(question).to_contain_text("시간은 언제로 할까요?", timeout=60_000)
    expect(page.locator("#slots-table tr.missing")).to_have_count(1)
    expect(page.locator("#slots-table tr.missing")).to_contain_text("시간")  # its Korean label
    expect(page.locator("#slots-table")).to_contain_text("인원2명")
    expect(page.locator("#slots-status")).to_have_text("아직 필요한 정보: 시간")
    expect(page.locator("#input")).to_have_attribute("placeholder", "질문에 답해 주세요")
    page.screenshot(path=ARTIFACTS / "desktop-task-question.png")

    ask(page, "내일 12시 30분")
    answer = page.locator(".exchange .answer").last
    expect(answer).to_contain_text("점심 메뉴 추천 — 을지로", timeout=60_000)  # by rule
    expect(answer).to_contain_text(SAMPLE_NOTICE)
    expect(page.locator("#slots-table tr.missing")).to_have_count(0)
    expect(page.locator("#slots-table")).to_contain_text("을지로")
    expect(page.locator("#slots-table")).to_contain_text("오후 12시 30분")  # not an ISO string
    expect(page.locator("#slots-status")).to_have_text("필요한 정보를 모두 받았습니다.")
    page.screenshot(path=ARTIFACTS / "desktop-task-done.png")
    page.close()


def test_plan_then_execute_shows_its_audit_trail(
    server: tuple[str, str, Settings], browser: Browser
) -> None:
    """The shipped plan-then-execute agent: each executed step lands in the audit trail."""
    url, key, _ = server
    page = open_app(browser, url, key, 1280, 860)
    new_chat(page, "계획-실행 에이전트")
    ask(page, "12+30 계산해 줘")
    expect(page.locator(".exchange .answer strong").last).to_have_text("42", timeout=60_000)
    audit = page.locator("#audit-list li")
    expect(audit).to_have_count(1)
    expect(audit).to_contain_text("1 calculator")
    expect(audit.locator(".badge")).to_have_text("성공")
    expect(audit.locator(".muted")).to_have_text("42")
    page.screenshot(path=ARTIFACTS / "desktop-pte-audit.png")
    page.close()


def test_a_tool_waits_for_approval_with_edited_arguments(
    server: tuple[str, str, Settings], browser: Browser
) -> None:
    """On a shared server the assistant's python_repl call is shown for approval; the user
    edits the code and approves; the real sandbox runs the edited code."""
    url, key, _ = server
    page = open_app(browser, url, key, 1280, 860)
    new_chat(page, "범용 어시스턴트 (문서 검색 · 도구 · 대화 기억)")
    ask(page, "6 곱하기 7을 파이썬으로 계산해 줘")
    card = page.locator(".approval")
    expect(card).to_contain_text("도구 실행 승인: python_repl", timeout=60_000)
    expect(card.locator("textarea")).to_have_value('{\n  "code": "print(6 * 7)"\n}')
    card.locator("textarea").fill('{"code": "print(6 * 8)"}')
    page.screenshot(path=ARTIFACTS / "desktop-approval.png")
    card.get_by_role("button", name="수정해서 승인").click()
    expect(page.locator(".exchange .answer").last).to_have_text(
        "파이썬으로 계산한 결과는 48입니다.", timeout=60_000
    )
    expect(page.locator(".approval")).to_have_count(0)
    page.close()


def test_my_documents_are_what_the_assistant_searches(
    server: tuple[str, str, Settings], browser: Browser, tmp_path: Path
) -> None:
    """A file added under "내 문서" is listed, read and searched: the assistant answers from it
    with it as the source. Deleted, it leaves the list and search, and the answer says so."""
    url, key, _ = server
    handbook = tmp_path / "직원안내서.md"
    handbook.write_text(HANDBOOK, encoding="utf-8")
    page = open_app(browser, url, key, 1280, 860)
    page.click("#open-docs")
    docs = page.locator("#docs-list")
    expect(docs).to_contain_text("아직 올린 문서가 없습니다.")
    page.set_input_files("#docs-file", str(handbook))
    expect(page.locator("#docs-status")).to_have_text(
        f"직원안내서.md: {len(HANDBOOK.strip()):,}자를 읽어 검색에 넣었습니다.", timeout=120_000
    )
    expect(docs.locator(".doc")).to_have_count(1)
    expect(docs.locator(".doc .title")).to_have_text("직원안내서.md")
    # A file the server cannot read is refused with its reason, and the list is as it was.
    page.set_input_files(
        "#docs-file", files=[{"name": "notes.exe", "mimeType": "text/plain", "buffer": b"x"}]
    )
    expect(page.locator("#docs-error")).to_contain_text("지원하지 않는 파일 형식입니다")
    expect(docs.locator(".doc")).to_have_count(1)
    page.screenshot(path=ARTIFACTS / "desktop-documents.png")
    page.locator("#docs-dialog").get_by_role("button", name="닫기").click()

    new_chat(page, "범용 어시스턴트 (문서 검색 · 도구 · 대화 기억)")
    ask(page, "회사 휴가 정책이 뭐야?")
    expect(page.locator(".exchange .answer").last).to_have_text(LEAVE, timeout=120_000)
    chip = page.locator(".exchange .chip").filter(has_text="직원안내서")
    expect(chip.first).to_be_visible()

    page.click("#open-docs")
    page.once("dialog", lambda d: d.accept())  # the confirm() before deleting
    docs.get_by_role("button", name="직원안내서.md 삭제").click()
    expect(docs).to_contain_text("아직 올린 문서가 없습니다.")
    page.locator("#docs-dialog").get_by_role("button", name="닫기").click()
    ask(page, "회사 휴가 정책이 뭐야?")
    expect(page.locator(".exchange .answer").last).to_contain_text(
        "등록된 문서가 없어 찾아볼 수 없습니다", timeout=60_000
    )
    page.close()


def test_phone_width(server: tuple[str, str, Settings], browser: Browser) -> None:
    url, key, _ = server
    page = open_app(browser, url, key, 390, 844)
    expect(page.locator("#sidebar")).not_to_be_in_viewport()
    page.click("#open-sidebar")
    expect(page.locator("#sidebar")).to_be_in_viewport(ratio=1)
    page.screenshot(path=ARTIFACTS / "phone-threads.png")
    page.locator(".thread").filter(has_text="제3조").first.click()
    expect(page.locator("#sidebar")).not_to_be_in_viewport()
    expect(page.locator(".exchange")).to_have_count(1)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, "nothing may stick out sideways at phone width"
    page.screenshot(path=ARTIFACTS / "phone-chat.png")

    page.locator(".exchange .chip").first.click()
    expect(page.locator("#panel")).to_be_in_viewport()
    expect(page.locator("#article-text")).to_contain_text("30일 이내")
    page.screenshot(path=ARTIFACTS / "phone-source.png")
    page.click("#close-panel")
    expect(page.locator("#panel")).to_be_hidden()

    ask(page, "제1조는요?")
    expect(page.locator(".exchange")).to_have_count(2)
    expect(page.locator(".exchange .answer").last).to_contain_text("제1조 (목적)")
    page.close()


def test_cut_off_turn_is_reported_with_a_resend(
    server: tuple[str, str, Settings], browser: Browser
) -> None:
    """A turn whose server died shows as cut off, and its message can be sent again."""
    url, key, settings = server
    headers = {"Authorization": f"Bearer {key}"}
    tid = httpx.post(f"{url}/threads", json={"agent": "qa"}, headers=headers).json()["id"]
    httpx.post(f"{url}/threads/{tid}/messages", json={"content": "첫 질문"}, headers=headers)
    # A turn journaled as running by a worker that no longer exists anywhere.
    with sqlite3.connect(settings.data_dir / "dure.sqlite") as db:
        head = db.execute("SELECT checkpoint_after FROM dure_turns WHERE thread_id = ?", (tid,))
        db.execute(
            "INSERT INTO dure_turns (id, thread_id, seq, status, message, worker, started_at,"
            " heartbeat_at, checkpoint_before, kept_writes) VALUES (?, ?, 2, 'running', ?,"
            " 'gone/host|1|dead', 0, 0, ?, '[]')",
            ("cut" + tid[3:], tid, "끊긴 질문", head.fetchone()[0]),
        )
    page = open_app(browser, url, key, 1280, 860)
    page.goto(f"{url}/#/t/{tid}")
    notice = page.locator(".exchange .notice.warn")
    expect(notice).to_contain_text("중간에 끊겼습니다")
    page.screenshot(path=ARTIFACTS / "desktop-interrupted.png")
    notice.get_by_role("button", name="다시 보내기").click()
    expect(page.locator("#input")).to_have_value("끊긴 질문")
    page.press("#input", "Enter")
    expect(page.locator(".exchange")).to_have_count(3)
    expect(page.locator(".exchange .answer").last).to_contain_text("끊긴 질문")
    page.close()


def test_stop_button_reattach_after_reload_and_place_in_line(
    server: tuple[str, str, Settings], browser: Browser
) -> None:
    url, key, _ = server
    page = open_app(browser, url, key, 1280, 860)
    new_chat(page, "시험용 계약서 Q&A")
    ask(page, "천천히 알려 줘")
    stop = page.locator("#stop")
    expect(stop).to_be_visible()
    expect(page.locator(".exchange .answer.streaming")).to_contain_text("따르면")  # mid-answer
    stop.click()
    answer = page.locator(".exchange .answer").last
    expect(answer).to_contain_text("(답변을 중지했습니다.)")
    expect(page.locator(".exchange .step-error")).to_contain_text("중지 답변을 중지했습니다.")
    expect(answer).not_to_contain_text("자세한 내용은")  # it did not go on
    expect(stop).to_be_hidden()
    page.screenshot(path=ARTIFACTS / "desktop-stopped.png")

    # The next message is answered in full; then one whose page reloads mid-answer.
    ask(page, "계약기간은?")
    expect(page.locator(".exchange .answer").nth(1)).to_contain_text("자세한 내용은 출처를")
    ask(page, "천천히 다시 알려 줘")
    expect(page.locator(".exchange .answer.streaming")).to_be_visible()
    page.reload()  # the answer goes on on the server; the page takes it up from its beginning
    expect(page.locator(".exchange")).to_have_count(3)
    last = page.locator(".exchange .answer").last
    expect(last).to_contain_text("질문: 천천히 다시 알려 줘", timeout=30_000)  # a slow stream
    expect(last).to_contain_text("자세한 내용은 출처를 눌러 확인하세요.", timeout=30_000)
    expect(page.locator("#stop")).to_be_hidden()
    page.reload()  # the stopped one reads as it was
    expect(page.locator(".exchange .answer").first).to_contain_text("(답변을 중지했습니다.)")
    expect(page.locator(".exchange .notice:visible")).to_have_count(0)

    # An answer waiting for the model shows its place in line until its first token.
    ask(page, "줄 서서 알려 줘")
    waiting = page.locator(".exchange .notice.wait").last
    expect(waiting).to_have_text("대기 중: 앞에 2개")
    expect(waiting).to_have_text("대기 중: 앞에 1개")
    page.screenshot(path=ARTIFACTS / "desktop-queued.png")
    expect(page.locator(".exchange .answer").last).to_contain_text("질문: 줄 서서 알려 줘")
    expect(waiting).to_be_hidden()
    page.close()


def test_markdown_renderer_is_safe(server: tuple[str, str, Settings], browser: Browser) -> None:
    url, _, _ = server
    page = browser.new_page()
    page.goto(f"{url}/static/index.html")
    html = page.evaluate(
        """async (src) => (await import("/static/markdown.js")).renderMarkdown(src)""",
        '<img src=x onerror="alert(1)"> [a](javascript:alert(1)) **굵게** `<b>`\n\n'
        "| 조 | 내용 |\n|---|---|\n| 제1조 | 목적 |\n\n- 하나\n  - 둘\n\n"
        "[링크](https://example.com/?a=1&b=2)",
    )
    assert "<img" not in html and "javascript:" not in html.replace("(javascript:", "")
    assert (
        "&lt;img" in html and "<strong>굵게</strong>" in html and "<code>&lt;b&gt;</code>" in html
    )
    assert "<td>제1조</td>" in html and "<ul><li>하나<ul><li>둘</li></ul></li></ul>" in html
    assert 'href="https://example.com/?a=1&amp;b=2"' in html
    page.close()
