"""Share codes of the explorer's views (ldp_tools.explore.share): round trips, hostile codes, applying a view."""

from __future__ import annotations

import base64
import json
import zlib

import pytest

from ldp_tools.explore.share import (
    _apply_view,
    _decode_view,
    _encode_view,
    _view_from_query,
    _view_of,
    share_bar,
)


def test_a_view_round_trips_through_its_code_and_the_url_query():
    view = {
        "playground": {"epsilon": 2.5, "mechanism_key": "cms", "k": 8},
        "rappor": {"survey": False, "shape": "linear"},
    }
    code = _encode_view(view)
    assert (
        code.startswith("v1.") and len(code) < 130 and all(c.isalnum() or c in "-_." for c in code)
    )
    assert _decode_view(code) == view
    assert (
        _view_from_query(f"token=abc&view={code}") == view
        and _view_from_query("") == {}
        and _view_from_query(None) == {}
    )


def _code(raw: bytes) -> str:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return "v1." + base64.urlsafe_b64encode(packer.compress(raw) + packer.flush()).decode().rstrip(
        "="
    )


@pytest.mark.parametrize(
    "code",
    [
        "",
        "v1.",
        "v2.abc",
        "v1.!!!!",
        "v1." + "A" * 5000,
        _code(b"not json"),
        _code(b"[1, 2]"),
        _code(b'{"a": 1}'),
        _code(json.dumps({"playground": {"epsilon": {"nested": 1}}}).encode()),
        _code(json.dumps({"playground": {"label": "x" * 300}}).encode()),
        _code(b"{" + b'"a":{},' * 20000 + b'"b":{}}'),  # inflates past the ceiling
        _code(b'{"p": {"e": NaN}}'),
        _code(b'{"rappor": {"k": 1' + b"0" * 400 + b"}}"),  # past float: an OverflowError before
        _code(b"[" * 60000),
        _code(b'{"a":' * 10000),  # issue 39 item 9: ~107-character links, a RecursionError before
        _code(
            b'{"a": {"b": "[[[[{{"}, "c": [[{"d": 1}]]}'
        ),  # brackets inside text do not count, nesting below does
    ],
)
def test_hostile_or_broken_codes_are_refused_naming_code(code):
    with pytest.raises(ValueError, match="code must be"):
        _decode_view(code)


def test_values_stay_data_never_code():
    """A value that looks like code is only text: the panel's check refuses it with its message."""
    from ldp_tools.explore.panels import privacy_utility_panel

    panel = privacy_utility_panel(d=8, n=1000)
    view = _decode_view(
        _encode_view({"privacy_utility": {"epsilon": "__import__('os').system('touch pwned')"}})
    )
    problems = _apply_view([panel], view)
    assert problems == [] and "— epsilon must be a real number" in panel.message.value


def test_applying_a_view_sets_the_controls_with_one_redraw_and_reports_what_it_cannot_set():
    from ldp_tools.explore.panels import playground_panel

    panel = playground_panel(d=8, n=1000)
    assert (
        _view_of([panel]) == {"playground": panel.settings()}
        and _view_of([panel])["playground"]["epsilon"] == 1.0
    )
    problems = _apply_view(
        [panel],
        {
            "playground": {"epsilon": 3.0, "d": 20, "nope": 1, "mechanism_key": "no-such"},
            "missing": {"x": 1},
        },
    )
    assert panel.controls["epsilon"].value == 3.0 and panel.controls["d"].value == 20
    assert "no panel 'missing'" in problems and "playground: no control 'nope'" in problems
    assert any(p.startswith("playground.mechanism_key") for p in problems)
    assert "ε = 3, d = 20" in panel.summary.value
    assert _view_of([panel])["playground"] == {**panel.defaults, "epsilon": 3.0, "d": 20}


def test_the_share_bar_follows_the_panels_and_applies_the_page_query():
    from ldp_tools.explore.panels import privacy_utility_panel

    panel = privacy_utility_panel(d=8, n=1000)
    bar = share_bar().attach(
        panel, query="view=" + _encode_view({"privacy_utility": {"epsilon": 2.0}})
    )
    assert panel.controls["epsilon"].value == 2.0 and bar.message.value == ""
    assert _decode_view(bar.code.value) == {
        "privacy_utility": {**panel.defaults, "epsilon": 2.0}
    }  # every parameter
    assert f"?view={bar.code.value}" in bar.link.value
    panel.controls["n"].value = 5000
    assert _decode_view(bar.code.value) == {
        "privacy_utility": {**panel.defaults, "epsilon": 2.0, "n": 5000}
    }
    bar.code.value = _encode_view(
        {"privacy_utility": {"d": 12}}
    )  # a pasted partial code: the rest at the defaults
    assert panel.controls["d"].value == 12 and panel.settings() == {**panel.defaults, "d": 12}
    bar.code.value = "garbage"
    assert "refused: code must be" in bar.message.value
    bad = share_bar().attach(panel, query="view=v1.broken")
    assert "refused: code must be" in bad.message.value


def test_brackets_inside_text_are_not_nesting():
    """The nesting check (issue 39 item 9) skips strings: a label full of brackets and quotes still decodes."""
    view = {"playground": {"label": '[[[{{"\\\\"]]', "epsilon": 2.0}}
    assert _decode_view(_encode_view(view)) == view


def test_one_code_gives_one_view_whatever_the_page_showed():
    """Issue 36 item 3: a code's omitted parameters are the defaults, not the page's values; refused ones never travel."""
    from ldp_tools.explore.panels import playground_panel

    shown, other = playground_panel(d=8, n=1000), playground_panel(d=8, n=1000)
    shown.controls["epsilon"].value = 2.0
    shown.controls["n"].value = 0  # refused: back to 1000, and the code holds 1000
    code = _encode_view(_view_of([shown]))
    other.controls["n"].value = 5000
    other.controls["population"].value = "zipf"
    assert _apply_view([other], _decode_view(code)) == []
    assert (
        other.settings() == shown.settings() == shown.applied
        and other.summary.value == shown.summary.value
    )


def test_a_preheated_kernel_reads_the_page_request_as_voila_sends_it(monkeypatch):
    """A pre-heated Voilà kernel waits for its page's request on ``voila/query/<kernel id>`` and takes its
    details into the environment (what ``voila.utils.get_query_string`` does): here a stand-in for Voilà."""
    import asyncio
    import threading

    import websockets

    from ldp_tools.explore import share

    asked = []

    async def voila(socket):
        asked.append(socket.request.path)
        await socket.send(json.dumps({"QUERY_STRING": "view=v1.abc", "SERVER_PORT": "8123"}))

    async def start():
        return await websockets.serve(voila, "127.0.0.1", 0)

    async def stop():
        server.close()
        await server.wait_closed()

    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(start())
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    for name, value in {
        "VOILA_PREHEAT": "True",
        "VOILA_APP_PORT": str(server.sockets[0].getsockname()[1]),
        "VOILA_KERNEL_ID": "k-1",
        "QUERY_STRING": "",
        "SERVER_PORT": "",
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("VOILA_WS_BASE_URL", "VOILA_SERVER_URL", "VOILA_WS_PROTOCOL", "VOILA_APP_IP"):
        monkeypatch.delenv(name, raising=False)
    try:
        assert share._request_query() == "view=v1.abc"
        assert asked == ["/voila/query/k-1"] and share._page_url("v1.x").startswith(
            "http://127.0.0.1:8123/"
        )
    finally:
        asyncio.run_coroutine_threadsafe(stop(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
    monkeypatch.setenv(
        "VOILA_PREHEAT", "False"
    )  # any other kernel: the request is in its environment
    monkeypatch.setenv("QUERY_STRING", "view=v1.def")
    assert share._request_query() == "view=v1.def"


def test_reading_the_page_request_imports_no_server_stack():
    """Voilà's helpers import jupyter_server and jupyterlab_server, 3–4 s of every explorer kernel's CPU."""
    import os
    import subprocess
    import sys

    code = (
        "import sys\nfrom ldp_tools.explore import share\nshare._request_query()\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'voila', 'jupyter_server'}))"
    )
    env = {**os.environ, "VOILA_PREHEAT": "False", "QUERY_STRING": ""}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "[]", out.stdout
