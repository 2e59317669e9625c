"""tests/formats/speedscope_app.py: open a profile in the real speedscope app.

speedscope's npm package ships the built app (dist/release). It is served
from 127.0.0.1 with the profile beside it and opened in headless Chromium
with #profileURL=...&view=sandwich: the sandwich view is a DOM table of
functions with their total and self time, so what speedscope understood of
a file can be read back without looking at its canvas. An import error
shows as an alert(), which cdp.Browser turns into a failure.
"""
import http.server
import os
import re
import threading
import time

from cdp import Browser

RELEASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node_modules", "speedscope", "dist",
                       "release")


def available():
    return os.path.exists(os.path.join(RELEASE, "index.html"))


def _server(profile_dir):
    class Handler(http.server.SimpleHTTPRequestHandler):
        def translate_path(self, path):
            path = path.split("?")[0].split("#")[0]
            if path.startswith("/profile/"):
                return os.path.join(profile_dir, os.path.basename(path))
            return os.path.join(RELEASE, os.path.normpath(path).lstrip("/"))

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def sandwich(path, timeout=20):
    """Opens path in speedscope; returns (title, [(symbol, total %, self %)]) heaviest self first."""
    srv = _server(os.path.dirname(os.path.abspath(path)))
    try:
        with Browser() as b:
            url = "http://127.0.0.1:%d/index.html#profileURL=/profile/%s&view=sandwich" % (
                srv.server_address[1], os.path.basename(path))
            b.open(url)
            deadline = time.time() + timeout
            text = ""
            while "Symbol Name" not in text:
                if time.time() > deadline:
                    raise AssertionError("speedscope showed no sandwich table for %s:\n%s" % (path, text))
                time.sleep(0.1)
                text = b.eval("document.body.innerText")
            time.sleep(0.3)
            text = b.eval("document.body.innerText")
            title = b.eval("document.title")
    finally:
        srv.shutdown()
        srv.server_close()
    rows = re.findall(r"\(([\d.<]+)%\)\s*\n\s*[^\n]*\(([\d.<]+)%\)\s*\n\s*([^\n]+)", text)
    return title, [(name.strip(), float(tot.lstrip("<")), float(slf.lstrip("<"))) for tot, slf, name in rows]
