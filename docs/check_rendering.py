"""Open the built site in headless Chromium, offline, and check what a reader sees.

    python docs/check_rendering.py [docs/_build/html]

For each main page, at a desktop and a phone width, with the network cut off (as for a reader
of a downloaded copy of the site):

- every formula is typeset: MathJax's output (``mjx-container``) stands where Sphinx wrote
  ``\\(...\\)`` or ``\\[...\\]``, no formula is a MathJax error, and no raw delimiter is left in
  the page's text; the measures page must have formulas at all;
- the page does not scroll sideways (the document's ``scrollWidth`` within the window's
  width), and nothing in the text column reaches past it (over the sidebar) unless it scrolls
  in a box of its own, as wide tables, code blocks and formulas should;
- the page asks nothing of the network (a CDN script would be missing offline), and every font
  it uses loads;
- no heading names a tracker issue or a work session (a reader has no tracker).

Chromium (Debian's ``chromium`` package, or ``$CHROMIUM``) is driven over the DevTools protocol
on a pipe, with the standard library only. Exit status: 0 when every check passes, 1 when one
fails (each failure says which page, which width and what), 2 when the check cannot run.
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The pages a reader lands on; the formulas live on the measures page above all.
PAGES = [
    "index.html",
    "getting-started.html",
    "measures.html",
    "api.html",
    "gallery.html",
    "architecture.html",
    "benchmarks.html",
    "how-it-works.html",
    "guide/choosing.html",
    "generated/fastcluster_metrics.adjusted_rand_score.html",
]
MUST_HAVE_FORMULAS = {"measures.html"}
# (name, width, height, mobile): a laptop, and a phone.
VIEWPORTS = [("desktop", 1280, 800, False), ("phone", 390, 844, True)]
BROWSERS = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
# Sent nowhere: a proxy that refuses, and no name resolves. Only file:// loads.
OFFLINE_FLAGS = [
    "--proxy-server=127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND",
]

# Runs in the page once it has loaded: waits for MathJax (when the page has formulas), then
# measures. Returns a JSON-able report.
MEASURE_JS = r"""
(async (timeoutMs) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const deadline = Date.now() + timeoutMs;
  const sources = document.querySelectorAll(".math");
  let mathjax = "none needed";
  if (sources.length) {
    // MathJax's script is deferred: by the load event it has run, or it never will.
    const grace = Date.now() + 2000;
    while (!(window.MathJax && MathJax.startup && MathJax.startup.promise)
           && Date.now() < grace) {
      await sleep(50);
    }
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      const late = sleep(Math.max(0, deadline - Date.now())).then(() => "timed out");
      mathjax = await Promise.race([MathJax.startup.promise.then(() => "typeset"), late]);
    } else {
      mathjax = "not loaded";
    }
  }
  await document.fonts.ready;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

  // Text a reader sees, but code: a raw TeX delimiter there means an untypeset formula.
  const raw = [];
  const skip = "pre, code, script, style, textarea, mjx-container, mjx-assistive-mml";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(skip) || !el.getClientRects().length) continue;
    const t = n.textContent;
    const i = t.search(/\\[\[\(]|\\begin\{/);
    if (i >= 0) raw.push(t.slice(i, i + 70).replace(/\s+/g, " "));
  }

  // The outermost elements that reach past the right edge of the page.
  const doc = document.documentElement;
  const width = doc.clientWidth;
  const describe = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    const cls = [...el.classList].slice(0, 3);
    if (cls.length) s += "." + cls.join(".");
    return s;
  };
  const wide = [];
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= width + 1) continue;
    const p = el.parentElement;
    if (p && p !== document.body && p.getBoundingClientRect().right > width + 1) continue;
    const parents = [];
    for (let a = el.parentElement; a && a !== document.body && parents.length < 3;
         a = a.parentElement) {
      parents.unshift(describe(a));
    }
    wide.push(`${parents.join(" > ")} > ${describe(el)} (right edge ${Math.round(r.right)})`);
  }

  // Headings that name a tracker issue or a work session.
  const tracker = /\b(?:issues?|session|pull request|PR)\s*#?\d+|(?:^|\s)#\d+\b/i;
  const headings = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")]
    .map((h) => h.textContent.replace(/[\s¶#]+$/, "").trim())
    .filter((t) => tracker.test(t));

  // Content that spills out of the text column (over the sidebar) without scrolling in a
  // box of its own.
  const column = document.querySelector("article.bd-article") || document.querySelector("main");
  const spill = [];
  if (column) {
    const edge = column.getBoundingClientRect().right + 1;
    const clips = (el) => {
      for (let a = el.parentElement; a && a !== column; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== "visible") return true;
      }
      return false;
    };
    for (const el of column.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= edge || clips(el)) continue;
      const p = el.parentElement;
      if (p !== column && p.getBoundingClientRect().right > edge && !clips(p)) continue;
      spill.push(`${describe(el)} in ${describe(el.parentElement)} ` +
                 `(${Math.round(r.right - edge)} px past the column)`);
    }
  }

  return {
    mathjax,
    sources: sources.length,
    typeset: document.querySelectorAll("mjx-container").length,
    errors: [...document.querySelectorAll("mjx-merror, [data-mjx-error]")]
      .map((e) => e.getAttribute("data-mjx-error") || e.textContent).slice(0, 5),
    fontErrors: [...document.fonts].filter((f) => f.status === "error").map((f) => f.family),
    raw: raw.slice(0, 5),
    rawCount: raw.length,
    scrollWidth: doc.scrollWidth,
    clientWidth: width,
    wide: wide.slice(0, 6),
    spill: spill.slice(0, 6),
    headings,
    spillCount: spill.length,
  };
})
"""


class CheckError(Exception):
    """The check could not run (no browser, no site, the browser died or hung)."""


class Browser:
    """Headless Chromium on ``--remote-debugging-pipe``: JSON messages, NUL-terminated."""

    def __init__(self, executable: str, timeout: float) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="fcm-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def as_fds_3_and_4() -> None:  # in the child: the pipe ends Chromium expects
            a = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.close(a)
            os.close(b)

        args = [
            executable,
            "--headless",
            "--remote-debugging-pipe",
            f"--user-data-dir={self.profile}",
            "--no-sandbox",  # CI runs as root
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            *OFFLINE_FLAGS,
            "about:blank",
        ]
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
            close_fds=False,
            preexec_fn=as_fds_3_and_4,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CheckError(f"Chromium did not answer within {self.timeout:.0f} s")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    raise CheckError(f"Chromium exited:\n{self.output()}")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CheckError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, session: str) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self.events[i]
                    return
            self.events.append(self._read_message(deadline))

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-2000:]

    def close(self) -> None:
        try:
            os.write(self._to_browser, b'{"id": 0, "method": "Browser.close"}\0')
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def check_page(
    browser: Browser,
    url: str,
    page: str,
    viewport: tuple[str, int, int, bool],
    budget: float,
    shots: Path | None = None,
) -> tuple[list[str], str]:
    """Open ``url`` in a fresh tab at ``viewport``; return (failures, summary)."""
    name, width, height, mobile = viewport
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
        "sessionId"
    ]
    try:
        browser.send("Page.enable", session=session)
        browser.send("Network.enable", session=session)
        # Belt and braces beside the command-line flags: no request leaves the machine.
        browser.send(
            "Network.setBlockedURLs",
            {"urls": ["http://*", "https://*", "ws://*", "wss://*"]},
            session=session,
        )
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
            session=session,
        )
        browser.send("Page.navigate", {"url": url}, session=session)
        browser.wait_for("Page.loadEventFired", session)
        result = browser.send(
            "Runtime.evaluate",
            {
                "expression": f"({MEASURE_JS})({int(budget * 1000)})",
                "awaitPromise": True,
                "returnByValue": True,
            },
            session=session,
        )
        if "exceptionDetails" in result:
            raise CheckError(f"{page}: the measuring script failed: {result['exceptionDetails']}")
        m = result["result"]["value"]
        if shots is not None:
            png = browser.send(
                "Page.captureScreenshot",
                {"format": "png", "captureBeyondViewport": True},
                session=session,
            )["data"]
            shot = shots / f"{page.replace('/', '_').removesuffix('.html')}-{name}.png"
            shot.write_bytes(base64.b64decode(png))
    finally:
        browser.send("Target.closeTarget", {"targetId": target})
    requests = sorted(
        {
            e["params"]["request"]["url"]
            for e in browser.events
            if e.get("method") == "Network.requestWillBeSent"
            and e.get("sessionId") == session
            and not e["params"]["request"]["url"].startswith(("file:", "data:", "blob:", "about:"))
        }
    )
    browser.events.clear()

    where = f"{page} ({name}, {width} px)"
    failures = []
    if m["sources"] and (m["typeset"] < m["sources"] or m["mathjax"] != "typeset"):
        failures.append(
            f"{where}: formulas not typeset: {m['typeset']} of {m['sources']} "
            f"(MathJax: {m['mathjax']})"
        )
    if page in MUST_HAVE_FORMULAS and not m["sources"]:
        failures.append(f"{where}: no formulas found on the page")
    if m["errors"]:
        failures.append(f"{where}: MathJax could not typeset: {m['errors']}")
    if m["fontErrors"]:
        failures.append(f"{where}: fonts that did not load: {', '.join(m['fontErrors'])}")
    if m["rawCount"]:
        shown = "\n      ".join(m["raw"])
        failures.append(
            f"{where}: raw LaTeX in the text, {m['rawCount']} places, e.g.\n      {shown}"
        )
    if m["scrollWidth"] > m["clientWidth"]:
        culprits = "\n      ".join(m["wide"]) or "(no single element found)"
        failures.append(
            f"{where}: the page scrolls sideways: {m['scrollWidth']} px wide in a "
            f"{m['clientWidth']} px window; too wide:\n      {culprits}"
        )
    if m["spillCount"]:
        culprits = "\n      ".join(m["spill"])
        failures.append(
            f"{where}: {m['spillCount']} element(s) run past the text column without a "
            f"scroll bar of their own:\n      {culprits}"
        )
    if m["headings"]:
        shown = "\n      ".join(m["headings"][:5])
        failures.append(f"{where}: headings that name tracker issues:\n      {shown}")
    if requests:
        shown = "\n      ".join(requests[:5])
        failures.append(f"{where}: asks the network (unreachable offline) for:\n      {shown}")
    summary = (
        f"{where}: {m['typeset']}/{m['sources']} formulas typeset, "
        f"{m['scrollWidth']}/{m['clientWidth']} px wide"
    )
    return failures, summary


def find_browser() -> str:
    for name in [os.environ.get("CHROMIUM", ""), *BROWSERS]:
        path = shutil.which(name) if name else None
        if path:
            return path
    raise CheckError(
        "no Chromium found: install Debian's `chromium` package (apt-get install -y chromium) "
        "or point $CHROMIUM at one"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parent / "_build" / "html"
    parser.add_argument("site", nargs="?", type=Path, default=default, help="the built site")
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="seconds a page may take (default 30)"
    )
    parser.add_argument("--screenshots", type=Path, help="save each page's picture here")
    args = parser.parse_args(argv)
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    site: Path = args.site.resolve()
    try:
        missing = [p for p in PAGES if not (site / p).is_file()]
        if missing:
            raise CheckError(f"{site}: no such pages (is the site built?): {', '.join(missing)}")
        browser = Browser(find_browser(), timeout=args.timeout + 15)
        failures: list[str] = []
        try:
            version = browser.send("Browser.getVersion")["product"]
            print(f"{version}, offline, {len(PAGES)} pages of {site}")
            for page in PAGES:
                for viewport in VIEWPORTS:
                    found, summary = check_page(
                        browser,
                        (site / page).as_uri(),
                        page,
                        viewport,
                        args.timeout,
                        args.screenshots,
                    )
                    print(("FAIL " if found else "ok   ") + summary)
                    failures += found
        finally:
            browser.close()
    except CheckError as error:
        print(f"check_rendering: cannot check: {error}", file=sys.stderr)
        return 2
    if failures:
        print(f"\n{len(failures)} rendering problems:", file=sys.stderr)
        for failure in failures:
            print(f"  - {failure}", file=sys.stderr)
        return 1
    print("the site renders offline: formulas typeset, no page wider than its window")
    return 0


if __name__ == "__main__":
    sys.exit(main())
