"""tests/formats/cdp.py: drive headless Chromium over the DevTools protocol.

Uses --remote-debugging-pipe (fd 3 in, fd 4 out, NUL-terminated JSON), so
it needs only the Python standard library and Debian's chromium: no
websocket client, no Playwright download. Enough to open a page, run
script, send real mouse clicks, answer a prompt() and take a screenshot.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-dev-shm-usage", "--remote-debugging-pipe"]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, exe=None, width=1280, height=800, timeout=30):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="sprof-chromium-")
        to_r, self._to_w = os.pipe()
        self._from_r, from_w = os.pipe()

        def child_fds():
            # dup first: either pipe end may already sit on fd 3 or 4
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [exe or find_chromium()] + FLAGS + ["--user-data-dir=" + self.profile,
                                                "--window-size=%d,%d" % (width, height), "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=child_fds, close_fds=False)
        os.close(to_r)
        os.close(from_w)
        self._buf = b""
        self._id = 0
        self.events = []
        self.session = None
        self.fail_on_dialog = True

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_w, self._from_r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError("chromium did not answer in %ss" % self.timeout)
            ready, _, _ = select.select([self._from_r], [], [], left)
            if ready:
                chunk = os.read(self._from_r, 1 << 16)
                if not chunk:
                    err = self.proc.stderr.read().decode(errors="replace") if self.proc.poll() is not None else ""
                    raise AssertionError("chromium closed the pipe: " + err[-2000:])
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def post(self, method, session=True, **params):
        """Sends a command without waiting; returns its id for wait()."""
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_w, json.dumps(msg).encode() + b"\0")
        return self._id

    def wait(self, cid, method=""):
        deadline = time.time() + self.timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev.get("id") == cid:
                    reply = self.events.pop(i)
                    break
            else:
                reply = self._read_message(deadline)
                if reply.get("method") == "Page.javascriptDialogOpening" and self.fail_on_dialog:
                    # an alert() nobody expected (a page reporting an error) would block us
                    self.post("Page.handleJavaScriptDialog", accept=False)
                    raise AssertionError("the page opened a %s: %s" % (
                        reply["params"].get("type"), reply["params"].get("message")))
                if reply.get("id") != cid:
                    self.events.append(reply)
                    continue
            if "error" in reply:
                raise AssertionError("%s failed: %s" % (method, reply["error"]))
            return reply.get("result", {})

    def send(self, method, session=True, **params):
        """Sends a command (to the page session unless session=False) and returns its result."""
        return self.wait(self.post(method, session, **params), method)

    def wait_event(self, method, timeout=None):
        deadline = time.time() + (timeout or self.timeout)
        while True:
            for i, ev in enumerate(self.events):
                if ev.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def open(self, url):
        """Opens url in a new page and waits until its document has loaded."""
        target = self.send("Target.createTarget", session=False, url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", session=False, targetId=target,
                                 flatten=True)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Page.navigate", url=url)
        deadline = time.time() + self.timeout
        while self.eval("document.readyState") != "complete":
            if time.time() > deadline:
                raise AssertionError("page %s did not load" % url)
            time.sleep(0.05)

    def eval(self, expr):
        r = self.send("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in r:
            raise AssertionError("script failed: %s: %s" % (expr, json.dumps(r["exceptionDetails"])[:2000]))
        return r["result"].get("value")

    def click(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def drag(self, x0, y0, x1, y1, steps=5):
        """Presses the left button at (x0, y0), moves to (x1, y1) and releases it there."""
        self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x0, y=y0)
        self.send("Input.dispatchMouseEvent", type="mousePressed", x=x0, y=y0, button="left", clickCount=1)
        for i in range(1, steps + 1):
            self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x0 + (x1 - x0) * i / steps,
                      y=y0 + (y1 - y0) * i / steps, button="left", buttons=1)
        self.send("Input.dispatchMouseEvent", type="mouseReleased", x=x1, y=y1, button="left", clickCount=1)

    def type_text(self, text):
        """Types text into the focused element, as a keyboard would insert it."""
        self.send("Input.insertText", text=text)

    def click_prompt(self, x, y, answer):
        """Clicks where the page opens a prompt() and types answer into it."""
        self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        self.send("Input.dispatchMouseEvent", type="mousePressed", x=x, y=y, button="left", clickCount=1)
        released = self.post("Input.dispatchMouseEvent", type="mouseReleased", x=x, y=y, button="left",
                             clickCount=1)
        self.fail_on_dialog = False
        try:
            ev = self.wait_event("Page.javascriptDialogOpening")
            if ev["params"].get("type") != "prompt":
                raise AssertionError("expected a prompt, got %r" % ev["params"])
            self.send("Page.handleJavaScriptDialog", accept=True, promptText=answer)
            self.wait(released)
        finally:
            self.fail_on_dialog = True
        return ev["params"].get("message", "")

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
