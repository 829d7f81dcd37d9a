"""``make explore``: the explorer app (``app/explorer.ipynb``) served by Voilà on loopback, guarded.

Voilà runs the notebook in a kernel per page view and lets the page drive it; anything that can
reach the server and pass its checks can run the panels.  So the server, bound to 127.0.0.1:

* answers only requests whose ``Host`` header is a loopback name with its port (``127.0.0.1``,
  ``localhost``, ``[::1]``): a DNS-rebinding page (an attacker's name resolving to 127.0.0.1) is
  refused with 403 before any handler runs;
* refuses any request — the kernel websocket included — whose ``Origin`` header is present and is not
  such a loopback origin (a page of another site cannot open the kernel's websocket);
* requires a token (Voilà's token authentication, a fresh random one per start, printed in the URL);
  the page then keeps a login cookie, so a shared ``?view=`` link opens in the same browser;
* starts at most :data:`MAX_KERNELS` kernels (a page view beyond that is answered 503), culls kernels
  idle for an hour, keeps one kernel pre-heated (the page opens at once) and says when it runs as root.

References
----------
Voilà 0.5 (``Voila``, ``VoilaConfiguration.preheat_kernel``); jupyter_server's token identity provider.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from pathlib import Path
from collections.abc import Mapping
from urllib.parse import urlsplit

from ldp_helpers._validation import check_bool, check_instance, check_int

#: the host names a request may address the server by (with its port)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: at most this many kernels at once (the pre-heated one included); a page view beyond is refused
MAX_KERNELS = 6
#: the served notebook and the JupyterLab-only extensions that fail inside Voilà (console errors)
ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app" / "explorer.ipynb"
#: the files Voilà may serve besides the app (relative to ROOT): the book `make book` builds
BOOK_FILES = ["build/book/.*"]
DENYLIST = ["jupyterlab-jupytext", "@voila-dashboards/jupyterlab-preview"]
#: a Jupyter data directory holding the "ldp" Voilà template (Voilà's lab template without CDN links)
JUPYTER_DATA = Path(__file__).resolve().parent / "jupyter"


def allowed_host(host, port) -> bool:
    """Whether a ``Host`` header names this server by a loopback name and its port (``127.0.0.1:8866``)."""
    check_instance("host", host, str, "a Host header string")
    port = check_int("port", port, low=1, high=65535)
    return host.lower() in {f"{name}:{port}" for name in LOOPBACK_NAMES}


def allowed_origin(origin, port) -> bool:
    """Whether an ``Origin`` header is this server's own loopback origin (``http://127.0.0.1:8866``)."""
    check_instance("origin", origin, str, "an Origin header string")
    port = check_int("port", port, low=1, high=65535)
    parts = urlsplit(origin.lower())
    return parts.scheme == "http" and not parts.path.strip("/") and allowed_host(parts.netloc, port)


def refusal(headers, port, *, page: bool = False, kernels: int = 0) -> tuple[int, str] | None:
    """Why a request with these headers is refused (status, reason), or None: the guard of every handler.

    ``page`` marks a request for the notebook page, which starts a kernel: refused (503) once
    :data:`MAX_KERNELS` are running.
    """
    check_instance("headers", headers, Mapping, "a mapping of HTTP headers")
    port, page = check_int("port", port, low=1, high=65535), check_bool("page", page)
    kernels = check_int("kernels", kernels, low=0)
    host, origin = headers.get("Host", ""), headers.get("Origin")
    if not allowed_host(host, port):
        return 403, f"Host {host!r} is not a loopback name of this server (127.0.0.1:{port} or localhost:{port})"
    if origin is not None and not allowed_origin(origin, port):
        return 403, f"Origin {origin!r} is not this server's loopback origin"
    if page and kernels >= MAX_KERNELS:
        return 503, f"{kernels} explorer kernels are running (at most {MAX_KERNELS}): close a page and reload"
    return None


def _guarded_voila():
    """Voilà whose tornado Application checks every request with :func:`refusal` before routing it."""
    import tempfile

    import tornado.web
    from voila.app import Voila

    class Refused(tornado.web.RequestHandler):
        def initialize(self, status: int, reason: str):
            self.status, self.why = status, reason

        def prepare(self):
            self.set_status(self.status)
            self.finish(f"refused by `make explore`'s guard: {self.why}\n")

    class GuardedApplication(tornado.web.Application):
        def find_handler(self, request, **kwargs):
            kernels = len(self.settings["kernel_manager"].list_kernel_ids()) if request.path == "/" else 0
            why = refusal(request.headers, self.settings["ldp_port"], page=request.path == "/" and request.method == "GET",
                          kernels=kernels)
            if why is not None:
                return self.get_handler_delegate(request, Refused, {"status": why[0], "reason": why[1]})
            return super().find_handler(request, **kwargs)

    class GuardedVoila(Voila):
        def start(self):  # Voila.start with the guarded Application
            self.connection_dir = tempfile.mkdtemp(prefix="voila_", dir=self.connection_dir_root)
            settings = self.init_settings()
            self.app = GuardedApplication(**settings)
            self.app.settings.update(self.tornado_settings)
            self.app.settings["ldp_port"] = self.port
            self.app.add_handlers(".*$", self.init_handlers())
            self.listen()

    return GuardedVoila


def _voila_arguments(port: int, token: str, *, preheat: bool = True) -> list[str]:
    """The Voilà command line of the guarded app (loopback, token, template without CDN links, kernel limits).

    The ``ldp`` template is found through ``JUPYTER_PATH`` (:data:`JUPYTER_DATA`), which :func:`main` sets;
    the list- and dict-valued settings go in :func:`_voila_config`.
    """
    port = check_int("port", port, low=1, high=65535)
    check_instance("token", token, str, "a token string")
    return [str(APP), "--no-browser", "--Voila.ip=127.0.0.1", f"--port={port}", "--Voila.port_retries=0",
            f"--Voila.token={token}", "--VoilaConfiguration.template=ldp",
            "--MappingKernelManager.cull_idle_timeout=3600", "--MappingKernelManager.cull_interval=300",
            f"--VoilaConfiguration.preheat_kernel={preheat}", "--VoilaConfiguration.default_pool_size=1",
            f"--Voila.root_dir={ROOT}"]


def _voila_config():
    """The settings the command line cannot carry: denied extensions; Jupyter's own host check on, loopback names."""
    from traitlets.config import Config

    config = Config()
    config.VoilaConfiguration.extension_denylist = list(DENYLIST)
    config.VoilaConfiguration.file_allowlist = list(BOOK_FILES)  # the book beside the app: each panel links its chapter
    config.Voila.tornado_settings = {"allow_remote_access": False, "local_hostnames": ["localhost", "127.0.0.1", "::1"]}
    return config


def main(argv=None) -> int:
    """Serve the explorer on 127.0.0.1:PORT (``--port``, default 8866) behind the guard; print its URL with the token."""
    parser = argparse.ArgumentParser(prog="python -m ldp_helpers.explore.serve", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8866, help="loopback port (default 8866)")
    parser.add_argument("--no-preheat", action="store_true", help="start each page's kernel on demand")
    args = parser.parse_args(argv)
    port = check_int("port", args.port, low=1, high=65535)
    token = os.environ.get("LDP_EXPLORE_TOKEN") or secrets.token_urlsafe(24)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        print("make explore: running as root (uid 0): the explorer's kernels run as root too; only loopback, the "
              "token and the Host/Origin checks stand between a browser and them — prefer an unprivileged user",
              flush=True)
    print(f"make explore: serving app/explorer.ipynb at http://127.0.0.1:{port}/?token={token} "
          f"(loopback only, token required; Ctrl-C stops it)", flush=True)
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(JUPYTER_DATA), os.environ.get("JUPYTER_PATH")]))
    _guarded_voila().launch_instance(argv=_voila_arguments(port, token, preheat=not args.no_preheat), config=_voila_config())
    return 0


if __name__ == "__main__":
    sys.exit(main())
