"""The kernel manager of the runners (reproduce, refresh): no interrupt of an idle kernel at shutdown, and
`make figures`' numpy and OpenBLAS code path in every kernel.

jupyter_client's ``shutdown_kernel`` sends the kernel SIGINT before its shutdown request (to stop a busy
kernel).  At the end of a run the kernel is idle; when the signal lands while it handles a message, ipykernel
logs ``[IPKernelApp] ERROR | KeyboardInterrupt caught in kernel.`` on the runner's stderr, so a successful
``make figures`` printed an error line now and then.  Here the shutdown skips that interrupt: the shutdown
request stops an idle kernel, and jupyter_client still terminates, then kills, one that does not stop in
time.  A cell that hangs is interrupted by nbclient's own timeout handling, which this does not touch.

The Makefile exports :data:`DETERMINISTIC_ENV` (numpy's AVX-512 kernels and OpenBLAS's per-CPU kernels
differ in the last bit, which Agg can turn into a changed pixel); a runner started without make (the
README's ``python -m ldp_tools.pipeline.reproduce``) gives its kernels the same settings, unless the
environment sets them: the same bytes either way.
"""

from __future__ import annotations

import platform

from jupyter_client import AsyncKernelManager

#: the code path of `make figures` (the Makefile's exports; the two CPU settings on x86-64 only)
DETERMINISTIC_ENV = {"OPENBLAS_NUM_THREADS": "1"}
if platform.machine() == "x86_64":
    DETERMINISTIC_ENV |= {
        "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
        "OPENBLAS_CORETYPE": "Haswell",
    }


class QuietShutdownKernelManager(AsyncKernelManager):
    """``AsyncKernelManager`` whose shutdown does not interrupt the kernel first, and whose kernels get
    :data:`DETERMINISTIC_ENV` where their environment does not set it (module docstring)."""

    async def _async_launch_kernel(self, kernel_cmd, **kw) -> None:
        for name, value in DETERMINISTIC_ENV.items():
            kw["env"].setdefault(name, value)
        await super()._async_launch_kernel(kernel_cmd, **kw)

    async def _async_interrupt_kernel(self) -> None:
        if self.shutting_down:
            return
        await super()._async_interrupt_kernel()
