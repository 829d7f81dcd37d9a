"""``make explore``: the explorer app (``app/explorer.ipynb``) served by Voilà on loopback, guarded.

Voilà runs the notebook in a kernel per page view and lets the page drive it; anything that can
reach the server and pass its checks can run the panels.  So the server, bound to 127.0.0.1:

* answers only requests whose ``Host`` header is a loopback name with its port (``127.0.0.1``,
  ``localhost``, ``[::1]``): a DNS-rebinding page (an attacker's name resolving to 127.0.0.1) is
  refused with 403 before any handler runs;
* refuses any request — the kernel websocket included — whose ``Origin`` header is present and is not
  such a loopback origin (a page of another site cannot open the kernel's websocket);
* requires a token (Voilà's token authentication, a fresh random one per start, printed in the URL);
  the page then keeps a login cookie, so a shared ``?view=`` link opens in the same browser, and in
  another browser the app's own login page says where the token is (the ``make explore`` output);
* serves beside the app only the book's files (:func:`_book_file`: no ``..``, no hidden file);
* gives every page view its own kernel and ends it with the page: the page's unload beacon shuts it
  down at once, and a kernel whose page's last websocket closed ends :data:`CLOSED_PAGE_SECONDS`
  later (a crashed tab); a kernel no page ever connected to ends after :data:`IDLE_SECONDS` idle;
* admits at most :data:`MAX_PAGES` pages at once (plus one pre-heated kernel, so the page opens at
  once); a page view beyond is answered by a page saying what to do, which retries by itself;
* runs its kernels over IPC sockets in a private directory (not TCP on loopback) and says when it
  runs as root.

Each page view's kernel imports the panels' modules inside :func:`long_lived` (the app's first cell).

References
----------
Voilà 0.5 (``Voila``, ``VoilaConfiguration.preheat_kernel``, its ``/voila/api/shutdown`` beacon);
jupyter_server's token identity provider and ``MappingKernelManager`` culling.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import html
import os
import re
import secrets
import sys
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ldp_helpers._validation import check_bool, check_instance, check_int

#: the host names a request may address the server by (with its port)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: at most this many pages at once, each with its own kernel (one more kernel waits pre-heated)
MAX_PAGES = 5
#: a page's kernel ends this many seconds after the page's last websocket closed (no beacon came)
CLOSED_PAGE_SECONDS = 5
#: a kernel no page is connected to ends after this many seconds without activity (checked every 30 s)
IDLE_SECONDS = 120
#: the page over the cap reloads itself after this many seconds
RETRY_SECONDS = 10
#: the served notebook and the JupyterLab-only extensions that fail inside Voilà (console errors)
ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app" / "explorer.ipynb"
#: the folder Voilà may serve files from besides the app (relative to ROOT): the book `make book` builds
BOOK = "build/book"
DENYLIST = ["jupyterlab-jupytext", "@voila-dashboards/jupyterlab-preview"]
#: a Jupyter data directory holding the "ldp" Voilà template (Voilà's lab template without CDN links)
JUPYTER_DATA = Path(__file__).resolve().parent / "jupyter"
#: one path segment of a served book file: word characters, ``@ + - .``, never starting with a dot
_SEGMENT = r"[\w@+-][\w@.+-]*"


@contextlib.contextmanager
def long_lived():
    """Run the kernel's imports without garbage collection, then freeze what they made (the app's first cell).

    The panels' modules (numpy, scipy.stats, scikit-learn, statsmodels, pandas, matplotlib, ipywidgets)
    make about 250,000 objects that live as long as the kernel; a full collection walks every one of
    them, and the imports and the first renders trigger four, about 0.4 s of each page view's CPU that
    frees almost nothing.  Inside the block no collection runs; at its end :func:`gc.freeze` moves every
    object to the permanent generation, which later collections pass by, and collection resumes (if it
    was on).  What the kernel computes and shows is unchanged.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _allowed_host(host, port) -> bool:
    """Whether a ``Host`` header names this server by a loopback name and its port (``127.0.0.1:8866``)."""
    check_instance("host", host, str, "a Host header string")
    return host.lower() in {f"{name}:{port}" for name in LOOPBACK_NAMES}


def _allowed_origin(origin, port) -> bool:
    """Whether an ``Origin`` header is this server's own loopback origin (``http://127.0.0.1:8866``)."""
    check_instance("origin", origin, str, "an Origin header string")
    parts = urlsplit(origin.lower())
    return (
        parts.scheme == "http" and not parts.path.strip("/") and _allowed_host(parts.netloc, port)
    )


def _book_file(path) -> bool:
    """Whether a ``/voila/files/`` path (URL-decoded, relative to ROOT) names a file of the book.

    Only ``build/book/`` followed by plain segments: no ``.``/``..`` segment, no hidden file, no empty
    segment (``//``), no backslash, no percent sign (a second decoding), no drive or scheme.
    """
    return re.fullmatch(rf"{BOOK}/(?:{_SEGMENT}/)*{_SEGMENT}", path) is not None


def refusal(
    headers,
    port,
    *,
    path: str = "/",
    page: bool = False,
    pages: int = 0,
    max_pages: int = MAX_PAGES,
) -> tuple[int, str] | None:
    """Why a request with these headers for this raw URL path is refused (status, reason), or None: the guard
    of every handler.

    A path with a ``..`` segment or a backslash, also percent-encoded once or twice, is refused on every
    route (403).  ``page`` marks a request for the notebook page, which takes a kernel: refused (503)
    once ``pages`` pages (kernels in use by pages) reach ``max_pages``.
    """
    check_instance("headers", headers, Mapping, "a mapping of HTTP headers")
    check_instance("path", path, str, "a URL path string")
    port, page = check_int("port", port, low=1, high=65535), check_bool("page", page)
    pages = check_int("pages", pages, low=0)
    max_pages = check_int("max_pages", max_pages, low=1, high=64)
    host, origin = headers.get("Host", ""), headers.get("Origin")
    if not _allowed_host(host, port):
        return (
            403,
            f"Host {host!r} is not a loopback name of this server (127.0.0.1:{port} or localhost:{port})",
        )
    if origin is not None and not _allowed_origin(origin, port):
        return 403, f"Origin {origin!r} is not this server's loopback origin"
    decoded = unquote(unquote(path))
    if "\\" in decoded or ".." in decoded.split("/"):
        return 403, f"path {path!r} leaves its folder (a '..' segment or a backslash)"
    if page and pages >= max_pages:
        return 503, (
            f"{pages} explorer page{'s are' if pages != 1 else ' is'} open, each with its own Python "
            f"kernel, and at most {max_pages} may be open at once: close an explorer tab you no longer use "
            f"(its kernel ends within seconds), then reload"
        )
    return None


#: the answer to a page view over the cap (503): what happened, what to do; it retries by itself
FULL_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="{retry}">
<title>LDP explorer: all kernels in use</title>
<style>body {{font: 16px/1.5 system-ui, sans-serif; max-width: 44em; margin: 3em auto; padding: 0 1em; color: #222}}
code {{background: #f2f2f2; padding: 0 .25em}}</style></head>
<body class="ldp-full"><h1>The explorer is busy: all its kernels are in use</h1>
<p>{why}.</p>
<ul><li>Close an explorer tab or window you no longer use (in any browser on this machine): its kernel
ends within seconds.</li>
<li>This page tries again by itself every {retry} seconds, and opens the explorer as soon as a kernel is free
(the link you opened, with its <code>?view=</code> settings, is kept).</li>
<li>A page that never finished loading frees its kernel after {idle} seconds without activity.</li>
<li>Still stuck? Stop <code>make explore</code> (Ctrl-C) and start it again: every kernel ends, and it prints a
new address with a new token.</li></ul>
</body></html>
"""


def _guarded_voila(max_pages: int = MAX_PAGES, retry_seconds: int = RETRY_SECONDS):
    """Voilà whose tornado Application checks every request with :func:`refusal` before routing it.

    Its handlers are Voilà's with three replaced: the page sets the ``_xsrf`` cookie (so the page's
    unload beacon, a POST, is accepted and ends the kernel at once), the file handler serves only
    :func:`_book_file` paths, and the login page is the app's own (``ldp-login.html``).
    """
    import tempfile

    import tornado.web
    from voila.app import Voila
    from voila.static_file_handler import AllowListFileHandler
    from voila.tornado.handler import TornadoVoilaHandler
    from voila.voila_identity_provider import VoilaLoginHandler

    class Refused(tornado.web.RequestHandler):
        def initialize(self, status: int, reason: str):
            self.status, self.why = status, reason

        def prepare(self):
            self.set_status(self.status)
            if self.status == 503:
                self.set_header("Retry-After", str(retry_seconds))
                self.set_header("Content-Type", "text/html; charset=utf-8")
                self.finish(
                    FULL_PAGE.format(
                        why=html.escape(self.why), retry=retry_seconds, idle=IDLE_SECONDS
                    )
                )
            else:
                self.finish(f"refused by `make explore`'s guard: {self.why}\n")

    class Page(TornadoVoilaHandler):
        async def get(self, path=None):
            self.xsrf_token  # sets the _xsrf cookie that the page's unload beacon sends back  # noqa: B018
            await super().get(path)

    class BookFiles(AllowListFileHandler):
        def get_absolute_path(self, root, path):
            if not _book_file(path.replace(os.sep, "/")):
                raise tornado.web.HTTPError(403, "not a file of the book")
            absolute = super().get_absolute_path(root, path)
            if not Path(absolute).resolve().is_relative_to((ROOT / BOOK).resolve()):
                raise tornado.web.HTTPError(403, "not a file of the book")
            return absolute

    class Login(VoilaLoginHandler):
        def get_template(self, name):
            return self.settings["voila_jinja2_env"].get_template(
                {"login.html": "ldp-login.html"}.get(name, name)
            )

    class GuardedApplication(tornado.web.Application):
        def find_handler(self, request, **kwargs):
            page = request.path == "/" and request.method == "GET"
            manager = self.settings["kernel_manager"]
            pages = (
                len(manager.list_kernel_ids()) - manager.get_pool_size(os.path.relpath(APP, ROOT))
                if page
                else 0
            )
            why = refusal(
                request.headers,
                self.settings["ldp_port"],
                path=request.path,
                page=page,
                pages=max(pages, 0),
                max_pages=max_pages,
            )
            if why is not None:
                return self.get_handler_delegate(
                    request, Refused, {"status": why[0], "reason": why[1]}
                )
            return super().find_handler(request, **kwargs)

    class GuardedVoila(Voila):
        def init_handlers(self):
            ours = {
                TornadoVoilaHandler: Page,
                AllowListFileHandler: BookFiles,
                VoilaLoginHandler: Login,
            }
            return [
                (spec[0], ours.get(spec[1], spec[1]), *spec[2:]) for spec in super().init_handlers()
            ]

        def start(self):  # Voila.start with the guarded Application
            self.connection_dir = tempfile.mkdtemp(prefix="voila_", dir=self.connection_dir_root)
            settings = self.init_settings()
            self.app = GuardedApplication(**settings)
            self.app.settings.update(self.tornado_settings)
            self.app.settings["ldp_port"] = self.port
            self.app.add_handlers(".*$", self.init_handlers())
            for handler in self.log.handlers:
                handler.addFilter(_not_an_alarm)
            self._trust_app()
            self.listen()

        def _trust_app(self):
            """Sign the served notebook in this server's in-memory signature store: the app is trusted because
            it is the notebook this server was started to serve (else every page view logs "not trusted")."""
            import nbformat

            self.contents_manager.notary.sign(nbformat.read(APP, as_version=4))

    return GuardedVoila


#: jupyter_server's warnings that ordinary use produces: a kernel no page connected to ended after
#: :data:`IDLE_SECONDS` (by design), a kernel slow to answer its first ``kernel_info`` on a loaded machine
#: (the first warning, after 5 s of nudges; later ones stay warnings) and a reply arriving as its page's
#: websocket closes
ORDINARY = ("Culling 'idle' kernel", "Nudge: attempt 10 ", "zmq message arrived on closed channel")


def _not_an_alarm(record) -> bool:
    """A logging filter that keeps every record but shows the :data:`ORDINARY` warnings at INFO level."""
    import logging

    if record.levelno == logging.WARNING and record.getMessage().startswith(ORDINARY):
        record.levelno, record.levelname = logging.INFO, "INFO"
    return True


def _page_kernel_manager():
    """jupyter_server's kernel manager that ends a kernel :data:`CLOSED_PAGE_SECONDS` after its last websocket
    closed and no new one opened (the page is gone even if its unload beacon was lost)."""
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
    from tornado.ioloop import IOLoop

    class PageKernelManager(AsyncMappingKernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self._ending = set()  # kernels being shut down

        async def shutdown_kernel(self, kernel_id, *args, **kwargs):
            """End a kernel once: its page's beacon, its closed websocket and the idle culler may all ask.

            A kernel already gone or ending is left alone (a late beacon gets 204, not 404); the server's
            own shutdown of every kernel at exit does not come through here."""
            if kwargs.get("restart"):
                return await super().shutdown_kernel(kernel_id, *args, **kwargs)
            if kernel_id not in self or kernel_id in self._ending:
                return None
            self._ending.add(kernel_id)
            try:
                return await super().shutdown_kernel(kernel_id, *args, **kwargs)
            finally:
                self._ending.discard(kernel_id)

        async def cull_kernel_if_idle(self, kernel_id):
            """The culler's check, for a kernel still there and not ending (it may end while others are checked)."""
            if kernel_id in self and kernel_id not in self._ending:
                await super().cull_kernel_if_idle(kernel_id)

        def notify_disconnect(self, kernel_id):
            super().notify_disconnect(kernel_id)
            if self._kernel_connections.get(kernel_id) == 0:
                IOLoop.current().call_later(CLOSED_PAGE_SECONDS, self._end_if_closed, kernel_id)

        async def _end_if_closed(self, kernel_id):
            if (
                kernel_id in self
                and kernel_id not in self._ending
                and self._kernel_connections.get(kernel_id) == 0
            ):
                self.log.info(
                    "Kernel %s: its page closed %s s ago, shutting it down",
                    kernel_id,
                    CLOSED_PAGE_SECONDS,
                )
                await self.shutdown_kernel(kernel_id)

    return PageKernelManager


def _voila_arguments(port: int, token: str, *, preheat: bool = True) -> list[str]:
    """The Voilà command line of the guarded app (loopback, token, template without CDN links, kernel limits).

    The ``ldp`` template is found through ``JUPYTER_PATH`` (:data:`JUPYTER_DATA`), which :func:`main` sets;
    the list- and dict-valued settings go in :func:`_voila_config`.
    """
    port = check_int("port", port, low=1, high=65535)
    check_instance("token", token, str, "a token string")
    return [
        str(APP),
        "--no-browser",
        "--Voila.ip=127.0.0.1",
        f"--port={port}",
        "--Voila.port_retries=0",
        f"--Voila.token={token}",
        "--VoilaConfiguration.template=ldp",
        f"--MappingKernelManager.cull_idle_timeout={IDLE_SECONDS}",
        "--MappingKernelManager.cull_interval=30",
        "--KernelManager.transport=ipc",  # sockets in Voilà's private connection directory, not loopback TCP
        f"--VoilaConfiguration.preheat_kernel={preheat}",
        "--VoilaConfiguration.default_pool_size=1",
        f"--Voila.root_dir={ROOT}",
    ]


def _voila_config():
    """The settings the command line cannot carry: the kernel manager, denied extensions, the book's files,
    Jupyter's own host check on (loopback names), and a signature store in memory (nothing written)."""
    from traitlets.config import Config

    config = Config()
    config.VoilaConfiguration.multi_kernel_manager_class = _page_kernel_manager()
    config.VoilaConfiguration.extension_denylist = list(DENYLIST)
    # the book beside the app (each panel links its chapter); BookFiles then admits only _book_file paths
    config.VoilaConfiguration.file_allowlist = [f"{BOOK}/.*"]
    config.NotebookNotary.db_file = ":memory:"
    config.NotebookNotary.secret = secrets.token_bytes(32)
    # pings keep websockets alive through proxies and VPNs, which a loopback server never has; jupyter_server's
    # defaults (30 000 / 90 000 ms) contradict tornado >= 6.5 (timeout <= interval, in seconds) and log a warning
    config.Voila.tornado_settings = {
        "allow_remote_access": False,
        "local_hostnames": ["localhost", "127.0.0.1", "::1"],
        "ws_ping_interval": 0,
    }
    return config


def main(argv=None) -> int:
    """Serve the explorer on 127.0.0.1:PORT (``--port``, default 8866) behind the guard; print its URL with the token."""
    parser = argparse.ArgumentParser(
        prog="python -m ldp_tools.explore.serve", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--port", type=int, default=8866, help="loopback port (default 8866)")
    parser.add_argument(
        "--no-preheat", action="store_true", help="start each page's kernel on demand"
    )
    parser.add_argument(
        "--max-pages", type=int, default=MAX_PAGES, help=f"pages open at once (default {MAX_PAGES})"
    )
    parser.add_argument(
        "--retry-seconds",
        type=int,
        default=RETRY_SECONDS,
        help=f"a page over the cap reloads itself after this many seconds (default {RETRY_SECONDS})",
    )
    args = parser.parse_args(argv)
    port = check_int("port", args.port, low=1, high=65535)
    max_pages = check_int("max_pages", args.max_pages, low=1, high=64)
    retry_seconds = check_int("retry_seconds", args.retry_seconds, low=1, high=3600)
    token = os.environ.get("LDP_EXPLORE_TOKEN") or secrets.token_urlsafe(24)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        print(
            "make explore: running as root (uid 0): the explorer's kernels run as root too; only loopback, the "
            "token and the Host/Origin checks stand between a browser and them — prefer an unprivileged user",
            flush=True,
        )
    print(
        f"make explore: serving app/explorer.ipynb at http://127.0.0.1:{port}/?token={token} "
        f"(loopback only, token required; Ctrl-C stops it)",
        flush=True,
    )
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        filter(None, [str(JUPYTER_DATA), os.environ.get("JUPYTER_PATH")])
    )
    _guarded_voila(max_pages, retry_seconds).launch_instance(
        argv=_voila_arguments(port, token, preheat=not args.no_preheat), config=_voila_config()
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
