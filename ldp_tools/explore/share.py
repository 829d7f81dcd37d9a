"""Share a view of the explorer: the panels' settings as a short code and a URL that reproduces them.

A *view* is ``{panel name: {control name: value}}`` holding every control's value in effect (defaults included).
:func:`_encode_view` turns it into a short URL-safe code (``v1.`` + base64url of raw-deflated compact JSON);
:func:`_decode_view` reads one back, refusing anything that is not such a code (too long, not
deflate, not JSON, not panel → control → number/text/bool) with the library's ``ValueError``.
The app shows the code and a link ``…/?view=<code>`` to the current view (:func:`share_bar`); opening
the link (or pasting the code) sets every listed control and every other one to its default (one code,
one view, whatever the page showed), and each panel's own checks then refuse any value it does not
allow, with its usual message.  Values travel as data (JSON scalars), never as code.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import math
import os
import re
import zlib
from urllib.parse import parse_qs

import numpy as np

from ldp_helpers._validation import INT64_MAX, INT64_MIN, Described, check_instance, fail

PREFIX = "v1."
#: longest code accepted, and the most bytes its deflated JSON may inflate to (no decompression bomb)
MAX_CODE_CHARS, MAX_JSON_BYTES = 4096, 65536
#: a view's JSON nests two objects deep: {panel: {control: value}}
VIEW_DEPTH = 2


def _encode_view(view) -> str:
    """The short code of a view ``{panel: {control: value}}`` (values: numbers, text, booleans)."""
    _check_view(view)
    raw = json.dumps(view, separators=(",", ":"), sort_keys=True, allow_nan=False).encode("utf-8")
    # raw deflate: no header or checksum (the JSON checks itself)
    return PREFIX + base64.urlsafe_b64encode(zlib.compress(raw, 9, wbits=-15)).decode(
        "ascii"
    ).rstrip("=")


def _decode_view(code) -> dict:
    """The view a code of :func:`_encode_view` holds; a malformed code is refused (``ValueError`` naming ``code``)."""
    code = code.strip()
    if not code.startswith(PREFIX) or len(code) > MAX_CODE_CHARS:
        fail(
            "code",
            code,
            f"a view code: 'v1.' followed by at most {MAX_CODE_CHARS - len(PREFIX)} URL-safe base64 characters",
        )
    body = code[len(PREFIX) :]
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj(-15)
        raw = inflater.decompress(packed, MAX_JSON_BYTES)
        if inflater.unconsumed_tail or not inflater.eof:
            raise ValueError("truncated or too large")
        text = raw.decode("utf-8")
        # json.loads recurses: 60,000 '[' from a 105-character code overflow the stack
        if _nesting(text) > VIEW_DEPTH:
            fail(
                "code",
                code,
                f"a view code: JSON objects nested {VIEW_DEPTH} deep (panel → control → value)",
            )
        view = json.loads(text)
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError):
        fail("code", code, "a view code made by the explorer (base64url of deflated JSON)")
    _check_view(view, name="code")
    return view


def _nesting(text: str) -> int:
    """The deepest nesting of JSON arrays and objects in ``text`` (brackets inside strings do not count)."""
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text).encode("utf-8")
    chars = np.frombuffer(bare, dtype=np.uint8)
    steps = np.isin(chars, list(b"[{")).astype(np.int64) - np.isin(chars, list(b"]}"))
    return int(np.cumsum(steps).max()) if steps.size else 0


def _check_view(view, name: str = "view") -> None:
    if not isinstance(view, dict) or not all(
        isinstance(k, str) and isinstance(v, dict) for k, v in view.items()
    ):
        fail(
            name,
            Described(f"{type(view).__name__} {str(view)[:80]!r}"),
            "a dict {panel name: {control name: value}}",
        )
    for panel, controls in view.items():
        for control, value in controls.items():
            ok = (
                isinstance(value, bool)
                or (isinstance(value, int) and INT64_MIN <= value <= INT64_MAX)
                or (isinstance(value, float) and math.isfinite(value))
                or (isinstance(value, str) and len(value) <= 200)
            )
            if not isinstance(control, str) or not ok:
                fail(
                    name,
                    Described(f"{panel}.{control} = {value!r:.80}"),
                    "controls set to finite numbers (integers within int64), booleans or text of at "
                    "most 200 characters",
                )


def _view_from_query(query) -> dict:
    """The view of a URL query string (``view=<code>``; empty without one)."""
    query = check_instance("query", query if query is not None else "", str, "a URL query string")
    codes = parse_qs(query.lstrip("?")).get("view", [])
    return _decode_view(codes[-1]) if codes else {}


def _check_panels(panels) -> list:
    from ldp_tools.explore._widgets import Panel

    panels = check_instance("panels", panels, (list, tuple), "a list of explorer panels")
    for panel in panels:
        check_instance("panels", panel, Panel, "a list of explorer panels")
    return list(panels)


def _view_of(panels) -> dict:
    """The complete view of these panels: every control's value in effect (defaults included), by panel.

    A value a panel refused is not in effect (the control went back to the drawn one), so the code of
    this view reproduces exactly what the figures show, on any page.
    """
    return {panel.name: dict(panel.applied or panel.settings()) for panel in _check_panels(panels)}


def _apply_view(panels, view) -> list[str]:
    """Show a view: every control it lists set, every other at its panel's default (one redraw per panel changed).

    So a code means one view whatever the page showed before (a code that lists only some panels or
    controls — an older, shorter code — leaves nothing of the page's state).  Returns what could not
    be set, as messages; a value a panel refuses shows the panel's message and leaves that panel as it was.
    """
    panels, problems = _check_panels(panels), []
    names = {panel.name for panel in panels}
    problems += [f"no panel {name!r}" for name in view if name not in names]
    for panel in panels:
        values = view.get(panel.name, {})
        problems += [f"{panel.name}: no control {k!r}" for k in values if k not in panel.controls]
        wanted = {k: v for k, v in panel.defaults.items() if k in panel.controls}
        wanted.update({k: v for k, v in values.items() if k in panel.controls})
        if wanted != panel.settings():
            panel.set_values(wanted, problems)
    return problems


def _page_url(view_code: str) -> str:
    """The address of the explorer page with ``?view=<code>``, from the request Voilà gave the kernel."""
    host = os.environ.get("SERVER_NAME") or "127.0.0.1"
    port = os.environ.get("SERVER_PORT") or "8866"
    path = os.environ.get("SCRIPT_NAME") or "/"
    return f"http://{host}:{port}{path}?view={view_code}"


def _request_query() -> str:
    """The page request's query string ('' without one): a pre-heated Voilà kernel waits here for the page.

    Voilà runs a pre-heated kernel's notebook before any page asks for it; the page's request then
    arrives over the ``voila/query/<kernel id>`` websocket and its details go into the environment, as
    ``voila.utils.get_query_string`` does (Voilà 0.5) — without importing Voilà's server stack, which
    costs each kernel 3–4 s of CPU.  Any other kernel has the request's details in its environment.
    """
    if os.environ.get("VOILA_PREHEAT") == "True":
        os.environ.update(_voila_request_info())
    return os.environ.get("QUERY_STRING", "")


def _voila_request_info() -> dict:
    """The page request's details Voilà sends a pre-heated kernel (empty, with a warning, if none come)."""
    import asyncio
    import threading
    import warnings

    import websockets

    env = os.environ
    base = env.get("VOILA_WS_BASE_URL", env.get("VOILA_SERVER_URL", "/"))
    url = (
        f"{env.get('VOILA_WS_PROTOCOL', 'ws')}://{env.get('VOILA_APP_IP', '127.0.0.1')}:"
        f"{env.get('VOILA_APP_PORT', '8866')}{base}voila/query/{env.get('VOILA_KERNEL_ID')}"
    )
    info = {}

    async def receive():
        async with websockets.connect(url, open_timeout=5) as socket:
            return await socket.recv()

    def wait():  # in a thread of its own: the kernel's event loop is already running in this one
        try:
            info.update({str(k): str(v) for k, v in json.loads(asyncio.run(receive())).items()})
        except (OSError, TimeoutError, websockets.exceptions.WebSocketException):
            warnings.warn(f"Failed to connect to {url}", stacklevel=1)
        except (ValueError, AttributeError):  # not a JSON object: no request details
            warnings.warn(f"Unreadable page request from {url}", stacklevel=1)

    thread = threading.Thread(target=wait)
    thread.start()
    thread.join()
    return info


class _ShareBar:
    """The app's share bar: a link and a code for the current view, and a box to apply a code."""

    def __init__(self):
        import ipywidgets as w

        self.panels = []
        self.link = w.HTML()
        self.code = w.Text(
            placeholder="paste a view code and press Enter",
            continuous_update=False,
            layout=w.Layout(width="420px"),
        )
        self.message = w.HTML()
        self.widget = w.VBox(
            [self.link, w.HBox([w.HTML("<b>view code</b>&nbsp;"), self.code, self.message])]
        )
        self.widget.add_class("ldp-share")
        for part, cls in ((self.link, "link"), (self.code, "code"), (self.message, "message")):
            part.add_class(f"ldp-share-{cls}")
        self.code.observe(self._apply_code, names="value")

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

    def attach(self, *panels, query=None) -> _ShareBar:
        """Follow these panels (the link updates with every change) and apply the page's ``?view=`` code."""
        self.panels = list(panels)
        for panel in self.panels:
            for control in panel.controls.values():
                control.observe(lambda _change: self.refresh(), names="value")
        self._apply(lambda: _view_from_query(_request_query() if query is None else query))
        self.refresh()
        return self

    def refresh(self) -> None:
        code = _encode_view(_view_of(self.panels))
        url = _page_url(code)
        self._shown = code
        self.link.value = (
            f'Link to this view: <a class="ldp-share-url" href="{html.escape(url)}">'
            f"{html.escape(url)}</a> (open it in this browser: the server's token stays in its cookie)"
        )
        self.code.value = code

    def _apply_code(self, change) -> None:
        if change["new"] == getattr(self, "_shown", None):
            return
        self._apply(lambda: _decode_view(change["new"]))

    def _apply(self, read_view) -> None:
        """Apply the view ``read_view()`` gives; say what could not be applied, or why it is refused."""
        from ldp_tools.explore._widgets import refused

        try:
            problems = _apply_view(self.panels, read_view())
            self.message.value = html.escape("; ".join(problems))
        except ValueError as err:
            self.message.value = refused(str(err))


def share_bar():
    """The app's share bar (display it first, then call ``.attach(*panels)`` once the panels exist)."""
    return _ShareBar()
